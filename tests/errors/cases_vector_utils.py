"""placeholder"""

from tests.errors.harness import CaseTable

TABLE = CaseTable("vector_utils")
