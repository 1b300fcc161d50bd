# Type stubs for fairshuf.torch (the implementation: torch.py).
from typing import Any, Dict, Iterator, Optional, Union

import torch.utils.data

class Sampler(torch.utils.data.Sampler[int]):
    n: int
    rank: int
    num_replicas: int
    shuffle: bool
    drop_last: bool
    seed: Union[str, int, None]
    epoch: int
    num_samples: int
    total_size: int
    def __init__(self, dataset: Any, num_replicas: Optional[int] = ...,
                 rank: Optional[int] = ..., shuffle: bool = ...,
                 seed: Union[str, int, None] = ..., drop_last: bool = ..., *,
                 world_size: Optional[int] = ...) -> None: ...
    @property
    def world_size(self) -> int: ...
    def set_epoch(self, epoch: int) -> None: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[int]: ...
    def state_dict(self) -> Dict[str, Any]: ...
    def load_state_dict(self, state: Dict[str, Any]) -> None: ...
