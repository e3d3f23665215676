"""Smoke test of the scale benchmark (``python -m bench.scale --quick``, with ``--thinking-ais 2``),
run as a subprocess.

Checks what the benchmark produces, never how fast: the last line is one JSON object with
every figure it reports, each a positive number, and no timed click was refused
(each one moved its table on). Targets live in the benchmark only.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

from bench import scale

ROOT = Path(__file__).resolve().parents[1]

KEYS = ("click_median_ratio", "click_p99_ms_1k", "click_p99_ms_10k", "board_p99_ms_10k", "restart_s_10k",
        "kb_per_table", "service_step_ms", "engine_step_ms", "click_p99_ms_ai", "thinking_ais",
        "answered_p99_ms_1k", "answered_p99_ms_10k")


def test_quick_mode_ends_with_the_figures_as_json() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "bench.scale", "--quick", "--thinking-ais", "2",
                           "--think-seconds", "0.5"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)  # a smoke test: no time limit but a hang
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    summary = json.loads(lines[-1])
    for key in KEYS:
        value = summary[key]
        assert isinstance(value, (int, float)) and not isinstance(value, bool), key
        assert math.isfinite(value) and value > 0, (key, value)
    assert summary["restart_timed_out_10k"] is False
    assert summary["tables_1k"] < summary["tables_10k"]
    assert summary["clicks"] > 0
    # the readable table comes before the JSON; no timed click was refused (lost boards/refused)
    clicks_row = next(line for line in lines if line.startswith("clicks timed"))
    refused = [int(r) for r in re.findall(r"\(\d+/(\d+)\)", clicks_row)]
    assert refused == [0, 0], clicks_row


def test_per_click_mode_opens_each_panel_before_its_click_and_reports_the_cpu_per_click() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "bench.scale", "--tables", "24", "--clicks", "4", "--warmup", "1",
                           "--background", "0", "--ai-delay", "30", "--no-replies", "--no-submits", "--open-panel",
                           "--warm-pictures",
                           "--engine-seconds", "0.05", "--points", "4", "--restart-timeout", "60"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "was not shown with its picture" not in proc.stderr  # every opened panel came with its picture
    lines = proc.stdout.strip().splitlines()
    summary = json.loads(lines[-1])
    row = next(line for line in lines if line.strip().startswith("clicks: actions / panels opened"))
    actions, opened = (int(n) for n in re.findall(r"(\d+) / (\d+)", row)[0])
    assert actions == opened == summary["panels_opened_1k"] == 5  # 4 timed clicks and 1 warm-up, each after its panel
    assert summary["service_step_ms"] == 0.0  # no service submits: every counted step is a click
    assert summary["cpu_ms_per_click_1k"] > 0 and summary["cpu_all_ms_per_click_1k"] >= summary["cpu_ms_per_click_1k"]
    clicks_row = next(line for line in lines if line.startswith("clicks timed"))
    assert re.findall(r"\(\d+/(\d+)\)", clicks_row) == ["0"], clicks_row


def test_every_size_starts_the_same_background_mix() -> None:
    moments = {"a": 12, "b": 12, "c": 10, "d": 12}
    mixes = []
    for n in (500, 700, 1000, 10_000):
        placed = scale.placement(n, 100, moments)
        assert len(placed) == n and sum(bg for _, _, bg in placed) == 100
        mixes.append(sorted((key, moment) for key, moment, bg in placed if bg))
    assert all(mix == mixes[0] for mix in mixes)
    assert {key for key, _ in mixes[0]} == set(moments)
    # spread over each game's moments (two or three tables each), not clumped on a few
    assert len(set(mixes[0])) == sum(moments.values())
