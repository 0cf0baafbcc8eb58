"""Solving a CP-SAT model the same way everywhere: a time limit, a number of workers, and a
one-line ShedError when no solution was found in time."""

from __future__ import annotations

from ortools.sat.python import cp_model

from shedding.errors import ShedError


def solve(model: cp_model.CpModel, time_limit: float, workers: int, fix: str) -> tuple[cp_model.CpSolver, bool]:
    """Solve ``model``; returns the solver (for its values) and whether optimality was proven.
    ``fix`` ends the error message when no solution was found."""
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = int(workers)
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise ShedError(f"CP-SAT found no solution within time_limit={time_limit}s ({solver.status_name(status)}); {fix}")
    return solver, status == cp_model.OPTIMAL
