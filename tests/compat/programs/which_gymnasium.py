"""Print what ``import gymnasium`` gave this program, and whether its spaces are palaestra's."""

import gymnasium

import palaestra

if __name__ == "__main__":
    print(gymnasium.__name__, gymnasium.spaces.Box is palaestra.spaces.Box)
