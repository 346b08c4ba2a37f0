"""Runners: where a streamed engine's actors live, as a part.

A streamed engine (:class:`solver.cfr.streamed_ray.StreamedRayEngine`) gives its cut groups to
actors (:class:`solver.cfr.streamed_ray.GroupsActor`: a tree part, a storage part and the
walks) and only talks to them through a runner: ``start`` them, call their methods
(``actor.method.remote(...)``, Ray's spelling, on either runner) and take the ``results`` in
the order asked, ``kill`` them. :class:`RayRunner` starts them as Ray actors (processes, on any
machine of a cluster); :class:`InProcess` keeps them as objects of this process, each call made
when it is asked for. Either way every entry receives the same operations in the same order: the
same bits (tests/test_contract.py).
"""

from __future__ import annotations

from ..game.plan import machine_memory_bytes
from .actors import connect, kill_actors, ray_results


class RayRunner:
    """Actors in Ray (``address``: "local" or a cluster's)."""

    def __init__(self, address: str, actors: int):
        self.ray = connect(address, actors)

    @staticmethod
    def actor_threads(cpus: float) -> int:
        """Each actor's Numba threads: its CPUs (at least one)."""
        return max(1, int(cpus))

    def start(self, actor_class: type, arguments: list[tuple], cpus: float, memory: int | None) -> list:
        resources = {} if memory is None else {"memory": int(memory)}
        remote = self.ray.remote(num_cpus=cpus, max_restarts=0, **resources)(actor_class)
        return [remote.remote(*args) for args in arguments]

    def results(self, futures, when: str) -> list:
        """The calls' results, in order (:func:`solver.cfr.actors.ray_results`: a dead actor is
        ActorLost, a failed call a RayError)."""
        return ray_results(self.ray, futures, when)

    def kill(self, actors: list) -> None:
        kill_actors(self.ray, actors)

    def node_memory(self) -> list[float]:
        """Each live node's memory resource (bytes)."""
        return [node["Resources"].get("memory", 0.0) for node in self.ray.nodes() if node.get("Alive")]


class _Call:
    def __init__(self, method):
        self.remote = method


class InProcessActor:
    """An actor object of this process, called as a Ray actor is (``actor.method.remote(...)``
    calls it at once and gives its result)."""

    def __init__(self, actor):
        self._actor = actor

    def __getattr__(self, name: str) -> _Call:
        return _Call(getattr(self._actor, name))


class InProcess:
    """Actors as objects of this process: the same engine without Ray (each actor's walks on
    this process's threads)."""

    @staticmethod
    def actor_threads(cpus: float) -> int:
        """0: the actors keep this process's Numba threads (setting them would change the driver's)."""
        return 0

    def start(self, actor_class: type, arguments: list[tuple], cpus: float, memory: int | None) -> list:
        return [InProcessActor(actor_class(*args)) for args in arguments]

    def results(self, futures, when: str) -> list:
        return list(futures)

    def kill(self, actors: list) -> None:
        """Nothing to kill: dropped, they are freed."""

    def node_memory(self) -> list[float]:
        return [float(machine_memory_bytes())]
