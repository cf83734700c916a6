"""Training end to end: real agent runs on the demo app, labelled by the heuristic verifier, become SFT / KTO / GRPO
data for a tiny vision-language model built offline; TRL trains it; the planner's transformers backend loads the
result; `deskpilot eval steps` measures it; and an SFT-trained model does a task on the demo app by itself."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from conftest import clicks_on_nothing, deskpilot, read_state
from tiny_models import build_tiny_llava

from deskpilot.resources.demo import DemoApp
from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.core.errors import PlannerError, TrainingError
from deskpilot.core.observation import Observation
from deskpilot.planner.families import FAMILIES
from deskpilot.planner.model_planner import ModelPlanner
from deskpilot.training.config import label_verifiers
from deskpilot.training.data import balanced, rows, trusted
from deskpilot.training.samples import Sample, SampleBuilder, Target

CHECK_TASK = 'check "Remember me"'
FAST = {"DESKPILOT_MAX_NEW_TOKENS": "96"}


@pytest.fixture(scope="module")
def episodes(xdisplay, tmp_path_factory) -> Path:
    """Two successful agent runs and one that clicks on nothing, labelled by `deskpilot label`."""
    root = tmp_path_factory.mktemp("episodes")
    app = DemoApp(root.parent / "demo-state.json").start()
    try:
        for task in ('type "Ada Lovelace" into Full name then click "Save"', CHECK_TASK):
            result = deskpilot("run", task, "--episodes-dir", str(root))
            assert result.returncode == 0, result.stderr
    finally:
        app.stop()
    clicks_on_nothing(root, 3)
    result = deskpilot("label", *map(str, list_episodes(root)))
    assert result.returncode == 0 and "3 bad, 4 good" in result.stdout, result.stdout + result.stderr
    return root


@pytest.fixture(scope="module")
def check_only(episodes, tmp_path_factory) -> Path:
    """Just the successful `check "Remember me"` run (two good steps)."""
    root = tmp_path_factory.mktemp("check-only")
    for path in list_episodes(episodes):
        if read_episode(path).meta.task == CHECK_TASK:
            shutil.copytree(path, root / path.name)
    return root


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    return build_tiny_llava(tmp_path_factory.mktemp("tiny-llava"))


class Replay:
    """A chat backend that answers with the recorded replies and keeps every request."""

    name = "replay"

    def __init__(self, replies: list[str]):
        self.replies = list(replies)
        self.requests: list[list[dict]] = []

    def complete(self, messages, on_text=None):  # noqa: ANN001, ANN201
        self.requests.append(messages)
        return self.replies.pop(0)


def test_training_prompts_are_exactly_what_the_planner_sends(episodes):
    family = FAMILIES["ui-tars-1.5"]
    path = next(p for p in list_episodes(episodes) if "Ada" in read_episode(p).meta.task)
    episode = read_episode(path)
    samples = list(SampleBuilder(family).episode_samples(episode))
    assert [s.label for s in samples] == ["good", "good", "good", "good"]
    assert samples[1].completion.endswith("Action: type(content='Ada Lovelace')")
    backend = Replay([s.completion for s in samples])
    planner = ModelPlanner(backend, family)
    for step in episode.steps:
        obs = Observation(episode.frame(step.before), step.monitor)
        planner.decide(episode.meta.task, episode.steps[:step.index], obs, [])
    assert backend.requests == [s.messages for s in samples]
    click = samples[0].target
    assert click.kind == "click" and click.box[0] <= click.point[0] <= click.box[2]


def test_kto_trains_a_lora_adapter_the_planner_loads(episodes, tiny_model, tmp_path):
    out = tmp_path / "kto"
    result = deskpilot("train", "kto", "--model", str(tiny_model), "--data", str(episodes), "--out", str(out),
                       "--max-steps", "2")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "9 steps from 3 episodes: 6 good, 3 bad, 0 unknown" in result.stdout
    run = json.loads((out / "deskpilot_training.json").read_text())
    assert run["method"] == "kto" and run["steps"] == 2 and run["peak_memory_mb"] > 0
    assert_lora_trained(out)
    losses = metric(out, "loss")
    assert len(losses) == 2 and all(np.isfinite(losses))
    assert (out / "metrics.png").stat().st_size > 5000
    assert list((out / "runs").rglob("events.out.tfevents.*")), "no TensorBoard events written"
    assert_planner_loads(out, episodes)
    # the whole path a user takes: the adapter folder (no config.json of its own) runs as the planner
    ran = deskpilot("run", 'click "Save"', "--planner", "transformers", "--model", str(out), "--max-steps", "1",
                    "--dry-run", "--episodes-dir", str(tmp_path / "ran"), env=FAST)
    assert "cannot load model" not in ran.stdout + ran.stderr and "Traceback" not in ran.stderr, ran.stderr[-2000:]
    assert list_episodes(tmp_path / "ran"), ran.stdout + ran.stderr


def test_grpo_trains_on_rule_rewards(episodes, tiny_model, tmp_path):
    out = tmp_path / "grpo"
    config = tmp_path / "grpo.yaml"
    config.write_text("max_completion_length: 24\nlora: {r: 4, target_modules: [q_proj, v_proj]}\n")
    result = deskpilot("train", "grpo", "--model", str(tiny_model), "--data", str(episodes), "--out", str(out),
                       "--max-steps", "2", "--config", str(config))
    assert result.returncode == 0, result.stderr[-2000:]
    for name in ("format", "action_type", "click", "click_distance", "text", "similarity"):
        assert f"rewards/{name}_reward/mean" in metric_names(out), name
    assert max(metric(out, "rewards/similarity_reward/mean")) > 0
    assert max(metric(out, "grad_norm")) > 0, "the shaped reward should give a gradient even to a random model"
    adapter = json.loads((out / "adapter_config.json").read_text())
    assert adapter["r"] == 4 and sorted(adapter["target_modules"]) == ["q_proj", "v_proj"]
    assert_lora_trained(out)
    assert_planner_loads(out, episodes)


def test_sft_teaches_the_model_and_the_agent_runs_it(check_only, tiny_model, tmp_path, demo_app):
    baseline = evaluate(tiny_model, check_only)
    assert baseline["parsed"] == 0.0
    out = tmp_path / "sft"
    config = tmp_path / "sft.yaml"
    config.write_text("learning_rate: 0.01\nlr_scheduler_type: constant\nnum_train_epochs: 100\n"
                      "per_device_train_batch_size: 2\nsave_strategy: 'no'\n")
    result = deskpilot("train", "sft", "--model", str(tiny_model), "--data", str(check_only), "--out", str(out),
                       "--full", "--max-steps", "80", "--config", str(config))
    assert result.returncode == 0, result.stderr[-2000:]
    assert metric(out, "loss")[-1] < 0.1
    trained = evaluate(out, check_only)
    assert trained == {"parsed": 1.0, "action_type": 1.0, "click_in_box": 1.0, "click_nearness": 1.0,
                       "text_match": 1.0, "text_similarity": 1.0, "exact": 1.0}
    run = deskpilot("run", CHECK_TASK, "--planner", "transformers", "--model", str(out), "--max-steps", "4",
                    "--episodes-dir", str(tmp_path / "runs"))
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    assert read_state(demo_app.state_file)["remember_me"] is True


@pytest.mark.timeout(600)
def test_distributed_run_through_torchrun(episodes, tiny_model, tmp_path):
    """Two data-parallel processes on the CPU (gloo): the standard launcher, no home-made one. `--standalone` lets the
    launcher pick a free rendezvous port (the fixed default, 29500, is anyone's to take)."""
    out = tmp_path / "ddp"
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", "-m",
               "deskpilot.app", "train", "kto", "--model", str(tiny_model), "--data", str(episodes), "--out", str(out),
               "--max-steps", "2"]
    # One run takes about 20 s; CI once saw a launch sit for 300 s with no word. A launch that is silent for 270 s is
    # killed (what it printed goes in the failure) and started once more.
    for attempt in (1, 2):
        launcher = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
        try:
            stdout, stderr = launcher.communicate(timeout=270)
            break
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, 9)
            _kill_holding(str(out))  # a worker in a session of its own outlives its launcher and holds the pipes
            stdout, stderr = launcher.communicate(timeout=60)
            assert attempt == 1, f"torchrun hung twice; what the second launch printed:\n{stderr[-3000:]}"
            print(f"torchrun hung; what it printed:\n{stderr[-3000:]}")  # kept in the report of a later failure
    workers_said = stderr.split("Traceback (most recent call last)")[0]  # not the launcher's own traceback
    assert launcher.returncode == 0, workers_said[-3000:]
    assert stdout.count("steps in") == 1, "only the main process reports"
    run = json.loads((out / "deskpilot_training.json").read_text())
    assert run["metrics"]["epoch"] == 1.0, "9 rows over 2 processes x batch 4 is one epoch in 2 steps"
    assert_lora_trained(out)


def _kill_holding(marker: str) -> None:
    """Kill every process whose command line holds `marker` (torchrun starts each worker in a session of its own:
    killing the launcher's group leaves a hung worker alive, holding the launcher's output pipes open)."""
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                os.kill(int(entry.name), 9)
        except OSError:
            continue  # gone already, or not ours to read


def test_training_errors_are_one_line(episodes, check_only, tiny_model, tmp_path):
    cases = [
        (["kto", "--data", str(check_only)], "error: KTO needs both good and bad steps (2 steps from 1 episodes: "
                                            "2 good, 0 bad, 0 unknown); add agent runs labelled bad, or use sft"),
        (["sft", "--data", str(tmp_path / "nowhere")], f"error: {tmp_path / 'nowhere'} is neither an episode nor a "
                                                       "folder of episodes"),
        (["sft", "--data", str(episodes), "--config", str(write(tmp_path / "bad.yaml", "lerning_rate: 1\n"))],
         "error: unknown sft training setting(s): lerning_rate"),
        (["sft", "--data", str(episodes), "--config", str(write(tmp_path / "b.yaml", "balance: {min_per_app: -1}\n"))],
         "error: balance.min_per_app must be a whole number >= 0, not -1"),
        (["grpo", "--data", str(episodes), "--config", str(write(tmp_path / "r.yaml", "rewards: {clik: 1}\n"))],
         "error: unknown reward(s) clik; available: format, action_type, click, click_distance, text, similarity, "
         "same_call, environment"),
        (["grpo", "--data", str(episodes), "--config", str(write(tmp_path / "p.yaml", "prompts: contrasted\n"))],
         "error: no prompt holds answers the environment scored apart: collect at the same seeds more than once, "
         "sampling (collect miniwob --temperature), or label --verifier branch"),
        (["grpo", "--data", str(episodes), "--config", str(write(tmp_path / "q.yaml", "prompts: some\n"))],
         "error: prompts must be all or contrasted, not 'some'"),
    ]
    adapter = tmp_path / "adapter"
    write(adapter / "adapter_config.json", "{}")
    runs = [["train", args[0], "--model", str(tiny_model), *args[1:], "--out", str(tmp_path / f"o{n}")]
            for n, (args, _) in enumerate(cases)]
    runs.append(["train", "sft", "--model", str(adapter), "--data", str(episodes), "--out", str(tmp_path / "o")])
    with ThreadPoolExecutor(max_workers=3) as pool:  # independent processes: run side by side
        results = list(pool.map(lambda args: deskpilot(*args), runs))
    for result, (_, message) in zip(results, cases):
        assert result.returncode == 2 and result.stderr.strip().splitlines()[-1] == message, result.stderr[-1500:]
    assert results[-1].returncode == 2 and "is a LoRA adapter; train from its base model" in results[-1].stderr


def test_balancing_repeats_the_rows_of_rare_apps_only():
    samples = [Sample(f"e{app}{n}", 0, "agent", [], "Action: click(target='button 1')", "good", Target("click"), app)
               for app, count in (("rare", 2), ("common", 7)) for n in range(count)]
    found = rows(samples, "sft")
    mixed = balanced(found, 5)
    rare = sorted(row["episode"] for row in mixed if row["episode"].startswith("erare"))
    assert len(rare) == 5 and set(rare) == {"erare0", "erare1"} and max(map(rare.count, set(rare))) == 3
    assert sorted(row["episode"] for row in mixed if row["episode"].startswith("ecommon")) == [
        f"ecommon{n}" for n in range(7)]
    assert balanced(found, 0) == found


def test_labels_of_untrusted_verifiers_become_unknown():
    def sample(label: str, verifier: str) -> Sample:
        return Sample("e", 0, "agent", [], "Action: click(target='button 1')", label, Target("click"), "", verifier)

    steps = [sample("bad", "env"), sample("bad", "heuristic"), sample("good", ""), sample("good", "heuristic")]
    assert [s.label for s in trusted(steps, label_verifiers({"labels": {"verifiers": ["env"]}}))] == [
        "bad", "unknown", "good", "unknown"]
    assert trusted(steps, label_verifiers({})) == steps
    with pytest.raises(TrainingError, match="verifiers, a list of names"):
        label_verifiers({"labels": {"verifier": "env"}})


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def metric_names(out: Path) -> set[str]:
    from deskpilot.training.metrics import read_metrics

    return set(read_metrics(out))


def metric(out: Path, name: str) -> list[float]:
    from deskpilot.training.metrics import read_metrics

    return [value for _, value in read_metrics(out)[name]]


def assert_lora_trained(out: Path) -> None:
    """LoRA's B matrices start at zero; after real optimizer steps they are not."""
    from safetensors.numpy import load_file

    weights = load_file(str(out / "adapter_model.safetensors"))
    lora_b = [w for name, w in weights.items() if "lora_B" in name]
    assert lora_b and any(np.abs(w).max() > 0 for w in lora_b)


def assert_planner_loads(out: Path, episodes: Path) -> None:
    import torch

    from deskpilot.planner.transformers_backend import TransformersBackend

    backend = TransformersBackend(str(out), max_new_tokens=8)
    base = TransformersBackend(json.loads((out / "adapter_config.json").read_text())["base_model_name_or_path"])
    merged, plain = dict(backend.model.named_parameters()), dict(base.model.named_parameters())
    assert merged.keys() == plain.keys()  # the adapter merged into its base: one set of weights
    assert any(not torch.equal(merged[name], plain[name]) for name in merged)  # ... that the training changed
    sample = SampleBuilder(FAMILIES["qwen2.5-vl"]).samples([episodes])[0]
    try:
        assert backend.complete(sample.messages).strip()
    except PlannerError as exc:  # an untrained model may answer nothing at all; loading and generation still ran
        assert "empty reply" in str(exc)


def evaluate(model: Path, episodes: Path) -> dict:
    result = deskpilot("eval", "steps", "--model", str(model), "--data", str(episodes), "--json", env=FAST)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["steps"] == 2
    return report["metrics"]
