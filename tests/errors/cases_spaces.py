"""Misuses of the spaces and their utilities (``spaces/*.py`` in Gymnasium)."""

from __future__ import annotations

import numpy as np

from tests.errors.harness import CaseTable

TABLE = CaseTable("spaces")
case = TABLE.add

I8 = np.int8
F64 = np.float64


def custom_space(gym):
    """A user-defined space Gymnasium's utilities know nothing about."""

    class Custom(gym.spaces.Space):
        pass

    return Custom()


# ---- Box construction ------------------------------------------------------------------------
@case
def box_dtype_none(gym):
    gym.spaces.Box(0, 1, (2,), dtype=None)


@case
def box_dtype_not_numeric(gym):
    gym.spaces.Box(0, 1, (2,), dtype=np.str_)


@case
def box_shape_not_iterable(gym):
    gym.spaces.Box(0, 1, shape=3)


@case
def box_shape_element_not_int(gym):
    gym.spaces.Box(0, 1, shape=(2.0,))


@case
def box_low_high_shapes_differ(gym):
    gym.spaces.Box(np.zeros(2), np.ones(3))


@case
def box_bounds_are_lists_without_shape(gym):
    gym.spaces.Box([0, 0], [1, 1])


@case
def box_low_shape_differs_from_shape(gym):
    gym.spaces.Box(np.zeros(2), 1.0, shape=(3,))


@case
def box_high_shape_differs_from_shape(gym):
    gym.spaces.Box(0.0, np.ones(2), shape=(3,))


@case
def box_low_above_high(gym):
    gym.spaces.Box(np.ones(2), np.zeros(2))


@case
def box_scalar_low_nan(gym):
    gym.spaces.Box(np.nan, 1.0, (2,))


@case
def box_scalar_low_neg_inf_unsigned(gym):
    gym.spaces.Box(-np.inf, 3, (2,), dtype=np.uint8)


@case
def box_scalar_low_below_dtype(gym):
    gym.spaces.Box(-1000, 3, (2,), dtype=np.int8)


@case
def box_low_list_with_shape(gym):
    gym.spaces.Box([0, 0], 1.0, shape=(2,))


@case
def box_low_array_of_strings(gym):
    gym.spaces.Box(np.array(["a", "b"]), 1.0, shape=(2,))


@case
def box_array_low_nan(gym):
    gym.spaces.Box(np.array([np.nan, 0.0]), 1.0)


@case
def box_array_low_neg_inf_unsigned(gym):
    gym.spaces.Box(np.array([-np.inf, 0.0]), 3, dtype=np.uint8)


@case
def box_array_low_below_dtype(gym):
    gym.spaces.Box(np.array([-1000, 0]), 3, dtype=np.int8)


@case
def box_low_precision_lowered(gym):
    gym.spaces.Box(np.zeros(2, dtype=np.float64), 1.0, dtype=np.float32)


@case
def box_scalar_high_nan(gym):
    gym.spaces.Box(0.0, np.nan, (2,))


@case
def box_scalar_high_inf_unsigned(gym):
    gym.spaces.Box(0, np.inf, (2,), dtype=np.uint8)


@case
def box_scalar_high_above_dtype(gym):
    gym.spaces.Box(0, 1000, (2,), dtype=np.int8)


@case
def box_high_list_with_shape(gym):
    gym.spaces.Box(0.0, [1, 1], shape=(2,))


@case
def box_high_array_of_strings(gym):
    gym.spaces.Box(0.0, np.array(["a", "b"]), shape=(2,))


@case
def box_array_high_nan(gym):
    gym.spaces.Box(0.0, np.array([np.nan, 1.0]))


@case
def box_array_high_inf_unsigned(gym):
    gym.spaces.Box(0, np.array([np.inf, 1.0]), dtype=np.uint8)


@case
def box_array_high_above_dtype(gym):
    gym.spaces.Box(0, np.array([1000, 1]), dtype=np.int8)


@case
def box_high_precision_lowered(gym):
    gym.spaces.Box(0.0, np.ones(2, dtype=np.float64), dtype=np.float32)


# ---- Box use ---------------------------------------------------------------------------------
@case
def box_is_bounded_unknown_manner(gym):
    gym.spaces.Box(0, 1, (2,)).is_bounded("sideways")


@case
def box_sample_with_mask(gym):
    gym.spaces.Box(0, 1, (2,)).sample(mask=np.ones(2, dtype=I8))


@case
def box_sample_with_probability(gym):
    gym.spaces.Box(0, 1, (2,)).sample(probability=np.ones(2))


@case
def box_contains_a_list(gym):
    gym.spaces.Box(0, 1, (2,)).contains([0.5, 0.5])


# ---- Dict ------------------------------------------------------------------------------------
@case
def dict_from_an_int(gym):
    gym.spaces.Dict(3)


@case
def dict_keyword_repeats_a_key(gym):
    gym.spaces.Dict({"a": gym.spaces.Discrete(2)}, a=gym.spaces.Discrete(3))


@case
def dict_value_not_a_space(gym):
    gym.spaces.Dict({"a": 3})


@case
def dict_seed_keys_differ(gym):
    gym.spaces.Dict({"a": gym.spaces.Discrete(2)}).seed({"b": 1})


@case
def dict_seed_a_string(gym):
    gym.spaces.Dict({"a": gym.spaces.Discrete(2)}).seed("1")


@case
def dict_sample_mask_and_probability(gym):
    gym.spaces.Dict({"a": gym.spaces.Discrete(2)}).sample(mask={}, probability={})


@case
def dict_sample_mask_not_a_dict(gym):
    gym.spaces.Dict({"a": gym.spaces.Discrete(2)}).sample(mask=(None,))


@case
def dict_sample_mask_keys_differ(gym):
    gym.spaces.Dict({"a": gym.spaces.Discrete(2)}).sample(mask={"b": None})


@case
def dict_sample_probability_not_a_dict(gym):
    gym.spaces.Dict({"a": gym.spaces.Discrete(2)}).sample(probability=(None,))


@case
def dict_sample_probability_keys_differ(gym):
    gym.spaces.Dict({"a": gym.spaces.Discrete(2)}).sample(probability={"b": None})


@case
def dict_set_item_not_a_space(gym):
    space = gym.spaces.Dict({"a": gym.spaces.Discrete(2)})
    space["b"] = 3


# ---- Discrete --------------------------------------------------------------------------------
@case
def discrete_n_a_float(gym):
    gym.spaces.Discrete(2.5)


@case
def discrete_n_zero(gym):
    gym.spaces.Discrete(0)


@case
def discrete_start_a_float(gym):
    gym.spaces.Discrete(3, start=0.5)


@case
def discrete_dtype_none(gym):
    gym.spaces.Discrete(3, dtype=None)


@case
def discrete_dtype_float(gym):
    gym.spaces.Discrete(3, dtype=np.float32)


@case
def discrete_sample_mask_and_probability(gym):
    gym.spaces.Discrete(3).sample(mask=np.ones(3, I8), probability=np.ones(3) / 3)


@case
def discrete_sample_mask_a_list(gym):
    gym.spaces.Discrete(3).sample(mask=[1, 1, 1])


@case
def discrete_sample_mask_wrong_dtype(gym):
    gym.spaces.Discrete(3).sample(mask=np.ones(3, np.int64))


@case
def discrete_sample_mask_wrong_shape(gym):
    gym.spaces.Discrete(3).sample(mask=np.ones(2, I8))


@case
def discrete_sample_mask_value_two(gym):
    gym.spaces.Discrete(3).sample(mask=np.array([1, 2, 0], I8))


@case
def discrete_sample_probability_a_list(gym):
    gym.spaces.Discrete(3).sample(probability=[1.0, 0.0, 0.0])


@case
def discrete_sample_probability_wrong_dtype(gym):
    gym.spaces.Discrete(3).sample(probability=np.array([1, 0, 0], np.float32))


@case
def discrete_sample_probability_wrong_shape(gym):
    gym.spaces.Discrete(3).sample(probability=np.array([1.0, 0.0]))


@case
def discrete_sample_probability_above_one(gym):
    gym.spaces.Discrete(3).sample(probability=np.array([2.0, -1.0, 0.0]))


@case
def discrete_sample_probability_sum_not_one(gym):
    gym.spaces.Discrete(3).sample(probability=np.array([0.5, 0.2, 0.0]))


# ---- Graph -----------------------------------------------------------------------------------
def graph(gym, edges=True):
    node = gym.spaces.Box(0, 1, (2,))
    return gym.spaces.Graph(node, gym.spaces.Discrete(3) if edges else None)


@case
def graph_seed_tuple_too_long_without_edges(gym):
    graph(gym, edges=False).seed((1, 2, 3))


@case
def graph_seed_tuple_too_short_with_edges(gym):
    graph(gym).seed((1, 2))


@case
def graph_seed_a_string(gym):
    graph(gym).seed("1")


@case
def graph_sample_zero_nodes(gym):
    graph(gym).sample(num_nodes=0)


@case
def graph_sample_mask_and_probability(gym):
    graph(gym).sample(mask=(None, None), probability=(None, None))


@case
def graph_sample_edges_without_edge_space(gym):
    graph(gym, edges=False).sample(num_nodes=2, num_edges=3)


@case
def graph_sample_negative_edges(gym):
    graph(gym).sample(num_nodes=2, num_edges=-1)


# ---- MultiBinary -----------------------------------------------------------------------------
@case
def multi_binary_n_zero(gym):
    gym.spaces.MultiBinary(0)


@case
def multi_binary_sequence_with_zero(gym):
    gym.spaces.MultiBinary([2, 0])


@case
def multi_binary_n_a_float(gym):
    gym.spaces.MultiBinary(2.5)


@case
def multi_binary_sample_mask_and_probability(gym):
    gym.spaces.MultiBinary(2).sample(mask=np.ones(2, I8), probability=np.ones(2))


@case
def multi_binary_sample_mask_a_list(gym):
    gym.spaces.MultiBinary(2).sample(mask=[1, 1])


@case
def multi_binary_sample_mask_wrong_dtype(gym):
    gym.spaces.MultiBinary(2).sample(mask=np.ones(2, np.int64))


@case
def multi_binary_sample_mask_wrong_shape(gym):
    gym.spaces.MultiBinary(2).sample(mask=np.ones(3, I8))


@case
def multi_binary_sample_mask_value_three(gym):
    gym.spaces.MultiBinary(2).sample(mask=np.array([3, 1], I8))


@case
def multi_binary_sample_probability_a_list(gym):
    gym.spaces.MultiBinary(2).sample(probability=[0.5, 0.5])


@case
def multi_binary_sample_probability_wrong_dtype(gym):
    gym.spaces.MultiBinary(2).sample(probability=np.ones(2, np.float32))


@case
def multi_binary_sample_probability_wrong_shape(gym):
    gym.spaces.MultiBinary(2).sample(probability=np.ones(3))


@case
def multi_binary_sample_probability_above_one(gym):
    gym.spaces.MultiBinary(2).sample(probability=np.array([2.0, 0.5]))


# ---- MultiDiscrete ---------------------------------------------------------------------------
@case
def multi_discrete_dtype_none(gym):
    gym.spaces.MultiDiscrete([2, 3], dtype=None)


@case
def multi_discrete_dtype_float(gym):
    gym.spaces.MultiDiscrete([2, 3], dtype=np.float32)


@case
def multi_discrete_start_shape_differs(gym):
    gym.spaces.MultiDiscrete([2, 3], start=[0, 0, 0])


@case
def multi_discrete_nvec_zero(gym):
    gym.spaces.MultiDiscrete([2, 0])


@case
def multi_discrete_sample_mask_and_probability(gym):
    gym.spaces.MultiDiscrete([2, 3]).sample(mask=(), probability=())


@case
def multi_discrete_sample_mask_a_list(gym):
    gym.spaces.MultiDiscrete([2, 3]).sample(mask=[np.ones(2, I8), np.ones(3, I8)])


@case
def multi_discrete_sample_mask_too_short(gym):
    gym.spaces.MultiDiscrete([2, 3]).sample(mask=(np.ones(2, I8),))


@case
def multi_discrete_sample_mask_too_deep(gym):
    gym.spaces.MultiDiscrete([2, 3]).sample(mask=((np.ones(2, I8),), np.ones(3, I8)))


@case
def multi_discrete_sample_sub_mask_a_list(gym):
    gym.spaces.MultiDiscrete([2, 3]).sample(mask=([1, 1], np.ones(3, I8)))


@case
def multi_discrete_sample_sub_mask_wrong_length(gym):
    gym.spaces.MultiDiscrete([2, 3]).sample(mask=(np.ones(3, I8), np.ones(3, I8)))


@case
def multi_discrete_sample_sub_mask_wrong_dtype(gym):
    gym.spaces.MultiDiscrete([2, 3]).sample(mask=(np.ones(2, np.int64), np.ones(3, I8)))


@case
def multi_discrete_sample_sub_mask_value_two(gym):
    gym.spaces.MultiDiscrete([2, 3]).sample(mask=(np.array([2, 1], I8), np.ones(3, I8)))


@case
def multi_discrete_sample_sub_probability_wrong_dtype(gym):
    gym.spaces.MultiDiscrete([2]).sample(probability=(np.ones(2, np.float32),))


@case
def multi_discrete_sample_sub_probability_above_one(gym):
    gym.spaces.MultiDiscrete([2]).sample(probability=(np.array([2.0, -1.0]),))


@case
def multi_discrete_sample_sub_probability_sum_not_one(gym):
    gym.spaces.MultiDiscrete([2]).sample(probability=(np.array([0.5, 0.2]),))


@case
def multi_discrete_len_of_two_dimensional(gym):
    len(gym.spaces.MultiDiscrete([[2, 3], [2, 3]]))


# ---- OneOf -----------------------------------------------------------------------------------
@case
def oneof_of_an_int(gym):
    gym.spaces.OneOf(3)


@case
def oneof_empty(gym):
    gym.spaces.OneOf([])


@case
def oneof_element_not_a_space(gym):
    gym.spaces.OneOf([gym.spaces.Discrete(2), 3])


def oneof(gym):
    return gym.spaces.OneOf([gym.spaces.Discrete(2), gym.spaces.Discrete(3)])


@case
def oneof_seed_tuple_wrong_length(gym):
    oneof(gym).seed((1, 2))


@case
def oneof_seed_a_string(gym):
    oneof(gym).seed("1")


@case
def oneof_sample_mask_and_probability(gym):
    oneof(gym).sample(mask=(None, None), probability=(None, None))


@case
def oneof_sample_mask_a_list(gym):
    oneof(gym).sample(mask=[None, None])


@case
def oneof_sample_mask_wrong_length(gym):
    oneof(gym).sample(mask=(None,))


@case
def oneof_sample_probability_a_list(gym):
    oneof(gym).sample(probability=[None, None])


@case
def oneof_sample_probability_wrong_length(gym):
    oneof(gym).sample(probability=(None,))


# ---- Sequence --------------------------------------------------------------------------------
def sequence(gym):
    return gym.spaces.Sequence(gym.spaces.Discrete(3))


@case
def sequence_of_an_int(gym):
    gym.spaces.Sequence(3)


@case
def sequence_seed_tuple_wrong_length(gym):
    sequence(gym).seed((1, 2, 3))


@case
def sequence_seed_a_string(gym):
    sequence(gym).seed("1")


@case
def sequence_sample_mask_and_probability(gym):
    sequence(gym).sample(mask=(None, None), probability=(None, None))


@case
def sequence_sample_negative_length(gym):
    sequence(gym).sample(mask=(np.int64(-1), None))


@case
def sequence_sample_length_array_two_dimensional(gym):
    sequence(gym).sample(mask=(np.ones((2, 2), np.int64), None))


@case
def sequence_sample_length_array_negative(gym):
    sequence(gym).sample(mask=(np.array([-1, 2]), None))


@case
def sequence_sample_length_array_float(gym):
    sequence(gym).sample(mask=(np.array([1.0, 2.0]), None))


@case
def sequence_sample_length_a_string(gym):
    sequence(gym).sample(mask=("2", None))


# ---- Space -----------------------------------------------------------------------------------
@case
def space_is_np_flattenable_not_implemented(gym):
    _ = custom_space(gym).is_np_flattenable


@case
def space_sample_not_implemented(gym):
    custom_space(gym).sample()


@case
def space_contains_not_implemented(gym):
    custom_space(gym).contains(1)


# ---- Text ------------------------------------------------------------------------------------
@case
def text_min_length_a_float(gym):
    gym.spaces.Text(5, min_length=1.5)


@case
def text_max_length_a_float(gym):
    gym.spaces.Text(5.5)


@case
def text_min_length_negative(gym):
    gym.spaces.Text(5, min_length=-1)


@case
def text_min_length_above_max(gym):
    gym.spaces.Text(2, min_length=3)


@case
def text_charset_multi_character(gym):
    gym.spaces.Text(5, charset=["ab", "c"])


def text(gym, min_length=1):
    return gym.spaces.Text(5, min_length=min_length, charset="abc")


@case
def text_sample_mask_and_probability(gym):
    text(gym).sample(mask=(None, None), probability=(None, None))


@case
def text_sample_mask_value_two(gym):
    text(gym).sample(mask=(None, np.array([2, 1, 0], I8)))


@case
def text_sample_probability_above_one(gym):
    text(gym).sample(probability=(None, np.array([2.0, -1.0, 0.0])))


@case
def text_sample_probability_sum_not_one(gym):
    text(gym).sample(probability=(None, np.array([0.5, 0.2, 0.0])))


@case
def text_sample_all_zero_mask(gym):
    text(gym).sample(mask=(None, np.zeros(3, I8)))


@case
def text_sample_mask_a_list(gym):
    text(gym).sample(mask=[None, None])


@case
def text_sample_mask_wrong_length(gym):
    text(gym).sample(mask=(None,))


@case
def text_sample_length_a_float(gym):
    text(gym).sample(mask=(2.0, None))


@case
def text_sample_length_above_max(gym):
    text(gym).sample(mask=(9, None))


@case
def text_sample_charset_mask_a_list(gym):
    text(gym).sample(mask=(None, [1, 1, 1]))


@case
def text_sample_charset_mask_wrong_dtype(gym):
    text(gym).sample(mask=(None, np.ones(3, np.int64)))


@case
def text_sample_charset_mask_wrong_shape(gym):
    text(gym).sample(mask=(None, np.ones(2, I8)))


# ---- Tuple -----------------------------------------------------------------------------------
def pair(gym):
    return gym.spaces.Tuple((gym.spaces.Discrete(2), gym.spaces.Discrete(3)))


@case
def tuple_element_not_a_space(gym):
    gym.spaces.Tuple((gym.spaces.Discrete(2), 3))


@case
def tuple_seed_wrong_length(gym):
    pair(gym).seed([1, 2, 3])


@case
def tuple_seed_a_string(gym):
    pair(gym).seed("1")


@case
def tuple_sample_mask_and_probability(gym):
    pair(gym).sample(mask=(None, None), probability=(None, None))


@case
def tuple_sample_mask_a_list(gym):
    pair(gym).sample(mask=[None, None])


@case
def tuple_sample_mask_wrong_length(gym):
    pair(gym).sample(mask=(None,))


@case
def tuple_sample_probability_a_list(gym):
    pair(gym).sample(probability=[None, None])


@case
def tuple_sample_probability_wrong_length(gym):
    pair(gym).sample(probability=(None,))


# ---- utils -----------------------------------------------------------------------------------
@case
def flatten_space_of_oneof_with_graph(gym):
    gym.spaces.utils.flatten_space(gym.spaces.OneOf([gym.spaces.Discrete(2), graph(gym)]))


@case
def flatdim_of_a_sequence(gym):
    gym.spaces.utils.flatdim(sequence(gym))


@case
def flatdim_of_a_custom_space(gym):
    space = custom_space(gym)
    space.__class__.is_np_flattenable = property(lambda self: True)
    gym.spaces.utils.flatdim(space)


@case
def flatdim_of_tuple_with_sequence(gym):
    gym.spaces.utils.flatdim(gym.spaces.Tuple((sequence(gym),)))


@case
def flatdim_of_dict_with_sequence(gym):
    gym.spaces.utils.flatdim(gym.spaces.Dict({"a": sequence(gym)}))


@case
def flatten_of_a_custom_space(gym):
    gym.spaces.utils.flatten(custom_space(gym), 1)


@case
def unflatten_of_a_custom_space(gym):
    gym.spaces.utils.unflatten(custom_space(gym), 1)


@case
def unflatten_discrete_all_zero(gym):
    gym.spaces.utils.unflatten(gym.spaces.Discrete(3), np.zeros(3))


@case
def unflatten_multi_discrete_all_zero(gym):
    gym.spaces.utils.unflatten(gym.spaces.MultiDiscrete([2, 3]), np.zeros(5))


@case
def unflatten_flat_tuple_from_a_list(gym):
    gym.spaces.utils.unflatten(pair(gym), [1, 0, 0, 1, 0])


@case
def unflatten_tuple_with_sequence_from_a_list(gym):
    gym.spaces.utils.unflatten(gym.spaces.Tuple((sequence(gym),)), [()])


@case
def unflatten_flat_dict_from_a_list(gym):
    gym.spaces.utils.unflatten(gym.spaces.Dict({"a": gym.spaces.Discrete(2)}), [1, 0])


@case
def unflatten_dict_with_sequence_from_a_list(gym):
    gym.spaces.utils.unflatten(gym.spaces.Dict({"a": sequence(gym)}), [()])


@case
def flatten_space_of_a_custom_space(gym):
    gym.spaces.utils.flatten_space(custom_space(gym))


@case
def shape_equivalence_of_custom_spaces(gym):
    gym.spaces.utils.is_space_dtype_shape_equiv(custom_space(gym), custom_space(gym))


@case
def shape_equivalence_of_non_spaces(gym):
    gym.spaces.utils.is_space_dtype_shape_equiv(1, 2)
