"""Ray, as the runners that keep storage in actors use it: joining a cluster, an actor call's
results (a lost actor, or a failed call, as one-line errors), killing actors, and the
protocol's whole-storage view of storage that lives in actors.

Ray is an optional extra: nothing here imports it until a runner connects."""

from __future__ import annotations

import os

import numpy as np


class RayError(ValueError):
    """Ray missing, a cluster that cannot be reached, a game this runtime cannot split, or an
    actor lost mid-run (its last checkpoint stands)."""


class ActorLost(RayError):
    """An actor died mid-walk: the solve restarts the actors from its last checkpoint."""


def import_ray():
    """The ray module; RayError saying how to install it if it is not."""
    try:
        import ray
    except ImportError:
        raise RayError("Ray is not installed: pip install -e '.[ray]' (or pip install ray)") from None
    return ray


def connect(address: str, actors: int):
    """Join the Ray cluster at ``address`` (``local``: start a runtime on this machine with a CPU
    per actor at least)."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    try:
        if address == "local":
            # address="local": always a new runtime (not one another process started on this machine).
            ray.init(address="local", num_cpus=max(os.cpu_count() or 1, actors), include_dashboard=False,
                     logging_level="ERROR",
                     log_to_driver=False)
        else:
            ray.init(address=address, logging_level="ERROR", log_to_driver=False)
    except Exception as error:  # Ray's own errors: a one-line reason
        raise RayError(f"cannot start or join Ray at {address!r}: {str(error).splitlines()[0]}") from None
    return ray


class GatheredStorage:
    """``regret`` and ``strat_sum`` of an engine whose storage is in actors: every actor's part
    gathered into one whole-layout array (``_gather(0)`` or ``_gather(1)``)."""

    @property
    def regret(self) -> np.ndarray:
        return self._gather(0)

    @property
    def strat_sum(self) -> np.ndarray:
        return self._gather(1)


def ray_results(ray, futures, when: str) -> list:
    """The results of actor calls. An actor that died is :class:`ActorLost` (the solve replaces
    it from the last checkpoint); a call that raised is a RayError with its last line (run again
    it would fail again: not retried)."""
    exceptions = ray.exceptions
    try:
        return ray.get(list(futures))
    except exceptions.RayActorError as error:
        if getattr(error, "actor_init_failed", False):   # (a new actor would fail to start again)
            raise RayError(f"a Ray actor could not start {when}: {str(error).strip().splitlines()[-1]}") from None
        raise ActorLost(f"a Ray actor was lost {when} ({type(error).__name__})") from None
    except (exceptions.ObjectLostError, exceptions.OwnerDiedError) as error:   # (its node went away)
        raise ActorLost(f"a Ray actor's results were lost {when} ({type(error).__name__})") from None
    except exceptions.RayError as error:
        raise RayError(f"a Ray actor failed {when}: {str(error).strip().splitlines()[-1]}") from None


def actor_seconds(seconds: np.ndarray, iterations: float) -> str:
    """A progress line's note of each actor's ``seconds`` of update walks over ``iterations``
    ("" if none)."""
    if iterations <= 0:
        return ""
    return "actors " + "/".join(f"{x:.2f}" for x in seconds / iterations) + " s an iteration"


def kill_actors(ray, actors) -> None:
    """Kill each of ``actors`` (one already dead is skipped)."""
    for actor in actors:
        try:
            ray.kill(actor)
        except Exception:  # already dead
            pass
