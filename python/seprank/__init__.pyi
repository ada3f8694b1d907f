# Type stubs of the seprank package (docs/python.md): its public surface, __all__ of
# __init__.py; the docstrings are in the modules _networks.py, _ranks.py, ….
from fractions import Fraction
import os
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

__version__: str

class ResourceLimitError(MemoryError): ...

_Partition = Union[None, str, Tuple[Iterable[int], Iterable[int]]]
_IntList = Union[None, int, str, Sequence[int]]

class Network:
    seed: Optional[int]
    @property
    def spec(self) -> Dict[str, Any]: ...
    @property
    def degree(self) -> int: ...
    @property
    def parameters(self) -> int: ...
    @property
    def weight_degree(self) -> int: ...
    def to_json(self, indent: Optional[int] = ...) -> str: ...
    def weights(self, numpy: bool = ...) -> Dict[str, Any]: ...
    def describe(self) -> str: ...

class Polynomial:
    @property
    def degree(self) -> int: ...
    @property
    def terms(self) -> int: ...
    @property
    def variables(self) -> List[str]: ...
    @property
    def homogeneous(self) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Tuple[Tuple[int, ...], Fraction]]: ...
    def to_dict(self) -> Dict[Tuple[int, ...], Fraction]: ...
    def to_sympy(self) -> Any: ...

class Answer:
    value: int
    kind: str
    failure_bound: float
    quantity: str
    method: str
    variant: Optional[str]
    field: str
    rows: int
    cols: int
    prime: Optional[int]
    primes_used: int
    seconds: float
    peak_mib: float
    phases: Mapping[str, float]
    device: str
    partition: Optional[str]
    degree: Optional[int]
    terms: Optional[int]
    converged: bool
    evaluations: int
    block_ranks: List[int]
    kernel_blocks: List[int]
    kernel_bits: int
    trials: int
    trial_ranks: List[int]
    degenerate: int
    set_size: Optional[int]
    weight_degree: Optional[int]
    bound_degree: Optional[int]
    output: Optional[str]
    parameters: Optional[int]
    expected: Optional[int]
    defect: Optional[bool]
    note: Optional[str]
    label: str
    certified: bool
    @property
    def rank(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Claim:
    name: str
    passed: bool
    detail: str
    statement: str
    checked: bool
    def __bool__(self) -> bool: ...

_OptInt = Optional[int]
_OptBool = Optional[bool]

def network(family: str = ..., *, tokens: _OptInt = ..., dim: _OptInt = ..., depth: _OptInt = ...,
            heads: _OptInt = ..., head_dim: _OptInt = ..., block_degree: _OptInt = ...,
            width: _OptInt = ..., widths: Optional[Sequence[int]] = ..., residual: _OptBool = ...,
            free: _OptBool = ..., embed_rank: _OptInt = ..., attention_rank: _OptInt = ..., position: _OptInt = ...,
            coordinate: _OptInt = ..., seed: int = ..., weight_range: int = ..., weights: Any = ...,
            embedding: Any = ..., power: _OptInt = ..., layers: Any = ...,
            repeat: Any = ...) -> Network: ...
def attention(tokens: _OptInt = ..., dim: _OptInt = ..., heads: _OptInt = ..., depth: _OptInt = ..., *,
              head_dim: _OptInt = ..., residual: _OptBool = ..., embed_rank: _OptInt = ...,
              attention_rank: _OptInt = ..., position: _OptInt = ..., coordinate: _OptInt = ..., seed: int = ...,
              weight_range: int = ..., weights: Any = ..., embedding: Any = ...) -> Network: ...
def hadamard(tokens: _OptInt = ..., dim: _OptInt = ..., depth: _OptInt = ..., block_degree: _OptInt = ..., *,
             width: _OptInt = ..., free: _OptBool = ..., residual: _OptBool = ..., embed_rank: _OptInt = ...,
             position: _OptInt = ..., coordinate: _OptInt = ..., seed: int = ..., weight_range: int = ...,
             weights: Any = ..., embedding: Any = ...) -> Network: ...
def fc(tokens: _OptInt = ..., dim: _OptInt = ..., depth: _OptInt = ..., block_degree: _OptInt = ..., *,
       widths: Optional[Sequence[int]] = ..., residual: _OptBool = ..., embed_rank: _OptInt = ...,
       coordinate: _OptInt = ..., seed: int = ..., weight_range: int = ..., weights: Any = ...,
       embedding: Any = ...) -> Network: ...
def stack(tokens: _OptInt = ..., dim: _OptInt = ..., layers: Union[str, Sequence[str], None] = ..., *, depth: _OptInt = ...,
          position: _OptInt = ..., coordinate: _OptInt = ..., seed: int = ..., weight_range: int = ...,
          weights: Any = ..., embed_rank: _OptInt = ...) -> Network: ...
def power(dim: _OptInt = ..., widths: Optional[Sequence[int]] = ..., power: _OptInt = ..., *,
          tokens: _OptInt = ..., coordinate: _OptInt = ..., seed: int = ..., weight_range: int = ...,
          weights: Any = ...) -> Network: ...
def from_weights(data: Union[Dict[str, Any], str, bytes, os.PathLike[str]]) -> Network: ...
def poly(text: str) -> Polynomial: ...
def expand(net: Network, *, max_memory: float = ..., variant: str = ..., product: str = ...) -> Polynomial: ...
def degree(net: Network, *, seed: Optional[int] = ..., max_expand_bytes: float = ...) -> List[Dict[str, Any]]: ...
def budget(budget: int, degrees: Iterable[int] = ..., *, family: str = ..., tokens: int = ..., dim: int = ...,
           heads: Optional[int] = ..., width: Optional[int] = ..., residual: bool = ...,
           seed: int = ..., dimension: bool = ..., rank: bool = ..., threads: int = ...) -> Dict[str, Any]: ...
def rank(target: Any, partition: _Partition = ..., *, method: str = ..., field: str = ...,
         seed: Optional[int] = ..., templates: Any = ..., max_side: int = ..., variant: str = ...,
         max_memory: float = ..., threads: int = ..., certificate: str = ..., device: str = ...) -> Answer: ...
def generic_rank(net: Union[Network, Dict[str, Any]], partition: _Partition = ..., *, trials: int = ...,
                 seed: int = ..., method: str = ..., max_side: int = ..., variant: str = ...,
                 threads: int = ..., start: int = ..., growth: float = ..., store: Union[None, str, bytes, "os.PathLike[str]"] = ...,
                 prime_bits: int = ..., max_seconds: float = ..., device: str = ...,
                 block_hints: Union[str, bytes, "os.PathLike[str]", Sequence[int], Mapping[str, Any], None] = ...) -> Answer: ...
class EpsRank:
    eps: float
    rank: Optional[int]
    rank_low: int
    rank_high: int
    certified: bool
    def to_dict(self) -> Dict[str, Any]: ...

class Spectrum:
    singular_values: List[float]
    radii: Optional[List[float]]
    radius: Optional[float]
    norm: float
    norm_squared: Fraction
    rank: int
    rank_certified: bool
    eps_ranks: List[EpsRank]
    eps_absolute: bool
    certified: bool
    measure: str
    method: str
    precision: int
    rows: int
    cols: int
    basis_rows: int
    basis_cols: int
    partition: str
    degree: int
    terms: Optional[int]
    seconds: float
    note: str
    def to_dict(self) -> Dict[str, Any]: ...

def spectrum(target: Any, partition: _Partition = ..., *, measure: str = ..., method: str = ...,
             precision: int = ..., eps: Union[float, Sequence[float]] = ..., eps_absolute: bool = ...,
             max_side: int = ..., max_memory: float = ..., seed: Optional[int] = ...,
             threads: int = ...) -> Spectrum: ...
def table(*, family: Union[None, str, Sequence[str]] = ..., tokens: _IntList = ..., dim: _IntList = ...,
          heads: _IntList = ..., depth: _IntList = ..., block_degree: _IntList = ..., width: _IntList = ...,
          residual: bool = ..., budget: int = ..., partition: _Partition = ..., trials: int = ...,
          seed: int = ..., method: str = ..., max_side: int = ..., variant: str = ..., threads: int = ...,
          progress: bool = ..., dataframe: Optional[bool] = ..., eps: Union[float, Sequence[float]] = ...,
          measure: str = ..., eps_max_side: int = ..., dimension: bool = ...,
          layers: Union[None, str, Sequence[str]] = ..., row_seconds: Optional[float] = ...,
          device: str = ..., out: Union[None, str, bytes, "os.PathLike[str]"] = ..., resume: bool = ...,
          out_format: str = ..., blocks: bool = ..., prime_bits: Optional[int] = ...) -> Any: ...
def claims() -> Dict[str, str]: ...
def verify(names: Union[None, str, Iterable[str]] = ..., *, seed: int = ...) -> List[Claim]: ...
class Guess:
    kind: Optional[str]
    vars: Tuple[str, ...]
    found: bool
    formula: str
    latex: str
    form: str
    params: int
    fitted: int
    confirmed: int
    forms_tried: int
    forms_refuted: int
    reason: str
    rows_fitted: List[Dict[str, int]]
    rows_confirmed: List[Dict[str, int]]
    recurrence: str
    exceptions: List[Dict[str, Any]]
    row_labels: Dict[str, int]
    rows_failure_bound: float
    rows_text: str
    marked: List[Dict[str, Any]]
    def predict(self, **point: int) -> Union[int, Fraction]: ...
    def __bool__(self) -> bool: ...
    def check(self, *, seconds: float = ..., trials: int = ..., max_side: int = ..., threads: int = ...,
              **point: int) -> Dict[str, Any]: ...
def guess(rows: Union[str, bytes, "os.PathLike[str]", Iterable[Mapping[str, Any]]], *, vars: Sequence[str], value: str = ...,
          where: Union[None, str, Mapping[str, Any]] = ..., max_degree: int = ..., bases: Sequence[int] = ...,
          max_order: int = ..., max_params: int = ..., min_confirm: int = ..., max_exps: int = ...,
          max_exceptions: int = ..., max_time: Optional[float] = ...) -> Guess: ...
class BlockLaw:
    kind: Optional[str]
    vars: Tuple[str, ...]
    found: bool
    law: str
    best: str
    forms: List[str]
    caps_only: bool
    fitted: int
    confirmed: int
    held_out: str
    at_cap: int
    rows: int
    rows_not_ok: int
    terms_tried: int
    reason: str
    notes: List[str]
    exceptions: List[Dict[str, Any]]
    held_out_exceptions: List[Dict[str, Any]]
    def predict(self, **point: int) -> Dict[str, Any]: ...
    def check(self, *, seconds: float = ..., trials: int = ..., max_side: int = ..., threads: int = ...,
              **point: int) -> Dict[str, Any]: ...
    def compare(self, rows: Union[str, "os.PathLike[str]", Iterable[Mapping[str, Any]]]) -> Dict[str, Any]: ...
    def __bool__(self) -> bool: ...
def guess_blocks(rows: Union[str, "os.PathLike[str]", Iterable[Mapping[str, Any]]], *, vars: Union[str, Sequence[str]],
                 where: Union[None, str, Mapping[str, Any]] = ..., max_forms: int = ..., max_exceptions: int = ...) -> BlockLaw: ...
def dimension(net: Union[None, Network, Dict[str, Any]] = ..., *, output: str = ..., variant: str = ...,
              trials: int = ..., seed: int = ..., prime_bits: int = ..., margin: int = ..., threads: int = ...,
              weights: Optional[Network] = ..., max_time: Optional[float] = ..., device: str = ...) -> Answer: ...
def expected_dimension(net: Union[Network, Dict[str, Any]], *, output: str = ...) -> Dict[str, Any]: ...
def variety(net: Union[Network, Dict[str, Any]], *, trials: int = ..., seed: int = ..., max_unknowns: int = ...,
            max_interpolation: int = ..., max_equation_monomials: int = ..., generic_slice: bool = ...,
            degree_slice: str = ..., threads: int = ...) -> Dict[str, Any]: ...
def equation(net: Union[Network, Dict[str, Any]], *, seed: int = ..., min_degree: int = ..., max_degree: int = ...,
             max_monomials: int = ..., max_terms: int = ..., max_seconds: float = ...) -> Dict[str, Any]: ...
def defects(*, max_width: int = ..., min_depth: int = ..., max_depth: int = ..., min_power: int = ..., max_power: int = ...,
            seed: int = ..., threads: int = ..., max_time: Optional[float] = ...) -> Dict[str, Any]: ...
def max_memory() -> float: ...
def set_max_memory(max_memory: float) -> None: ...
