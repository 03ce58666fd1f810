"""fgrun_cluster on a real Dask cluster on 127.0.0.1: one `dask scheduler` and two `dask worker`
processes started here and stopped at the end, a batch of 48 images, then the same batch with one
worker SIGKILLed part-way. Every output must be present and byte-identical to a single-machine
`fgrun --manifest` batch, and each input must be in the report exactly once.

fgrun is $FGRUN, or the debug build in .build/debug (`swift build` first).
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FGRUN = os.environ.get("FGRUN") or os.path.join(REPO, ".build", "debug", "fgrun")
FIXTURES = os.path.join(REPO, "Tests", "TestSupport", "Fixtures", "pngsuite")
SOURCES = ["basn0g08", "basn2c08", "basn2c16", "basn3p08", "basn4a08", "basn6a08", "basn6a16", "basi0g08",
           "basi2c08", "basi6a08", "bgai4a08", "bgan6a08", "ccwn2c08", "cdfn2c08", "f00n2c08", "f01n2c08"]
COUNT = 48
RECIPE = "scale 6\nblur sigma=2\n"
DEADLINE = 120  # seconds any one step may take before the test gives up


class ClusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(FGRUN, os.X_OK):
            raise unittest.SkipTest(f"fgrun not built at {FGRUN}")  # make test builds it first
        cls.folder = tempfile.mkdtemp(prefix="fgrun-cluster-test-")
        cls.processes = []
        names = []
        for i in range(COUNT):
            name = f"img{i:02d}.png"
            shutil.copy(os.path.join(FIXTURES, SOURCES[i % len(SOURCES)] + ".png"), os.path.join(cls.folder, name))
            names.append(name)
        cls.inputs = names
        with open(os.path.join(cls.folder, "list.txt"), "w") as out:
            out.write("".join(f"{n}\n" for n in names))
        with open(os.path.join(cls.folder, "recipe.txt"), "w") as out:
            out.write(RECIPE)
        reference = subprocess.run([FGRUN, "recipe.txt", "--manifest", "list.txt", "-o", "reference", "--format", "jpg"],
                                   cwd=cls.folder, capture_output=True, text=True, timeout=DEADLINE)
        assert reference.returncode == 0, reference.stderr
        scheduler_file = os.path.join(cls.folder, "scheduler.json")
        cls.start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                   "--scheduler-file", scheduler_file])
        deadline = time.monotonic() + DEADLINE
        while not os.path.exists(scheduler_file) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.2)
        with open(scheduler_file) as text:
            cls.address = json.load(text)["address"]
        cls.workers = [cls.start_worker(name) for name in ("a", "b")]

    @classmethod
    def start(cls, arguments):
        # The scheduler and the workers import fgrun_cluster (installed there with `pip install ./cluster`).
        environment = dict(os.environ, PYTHONPATH=os.path.join(REPO, "cluster"))
        process = subprocess.Popen([sys.executable, "-m", "dask", *arguments], cwd=cls.folder, env=environment,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        cls.processes.append(process)
        return process

    @classmethod
    def start_worker(cls, name):
        # --no-nanny: the worker is this process, so a SIGKILL ends it for good (a nanny would restart it).
        return cls.start(["worker", cls.address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                          "--host", "127.0.0.1", "--name", name, "--death-timeout", "60"])

    @classmethod
    def tearDownClass(cls):
        for process in reversed(getattr(cls, "processes", [])):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in getattr(cls, "processes", []):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        shutil.rmtree(getattr(cls, "folder", ""), ignore_errors=True)

    def driver(self, out, report, chunk, manifest="list.txt", extra=()):
        environment = dict(os.environ, PYTHONPATH=os.path.join(REPO, "cluster"))
        return subprocess.Popen(
            [sys.executable, "-m", "fgrun_cluster", "recipe.txt", "--manifest", manifest, "-o", out,
             "--report", report, "--scheduler", self.address, "--chunk", str(chunk), "--fgrun", FGRUN,
             "--format", "jpg", *extra],
            cwd=self.folder, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def check(self, out, report):
        path = os.path.join(self.folder, report)
        with open(path) as text:
            lines = [json.loads(line) for line in text]
        self.assertEqual(sorted(line["input"] for line in lines), sorted(self.inputs), "each input exactly once")
        for line in lines:
            self.assertIn(line["status"], ("ok", "skipped"), line)
        for name in self.inputs:
            jpg = name.replace(".png", ".jpg")
            with open(os.path.join(self.folder, "reference", jpg), "rb") as a, \
                    open(os.path.join(self.folder, out, jpg), "rb") as b:
                self.assertEqual(a.read(), b.read(), jpg)
        self.assertEqual(sorted(os.listdir(os.path.join(self.folder, out))),
                         sorted(n.replace(".png", ".jpg") for n in self.inputs), "nothing else in the folder")
        return lines

    def test_1_two_workers_match_a_single_machine_batch(self):
        driver = self.driver("out", "report.jsonl", chunk=5)
        stdout, stderr = driver.communicate(timeout=DEADLINE)
        self.assertEqual(driver.returncode, 0, stderr)
        self.assertIn(f"{COUNT} files: {COUNT} ok, 0 skipped, 0 failed", stdout)
        lines = self.check("out", "report.jsonl")
        self.assertEqual(len({line["worker"] for line in lines}), 2, "both workers took chunks")

    def test_2_a_worker_killed_part_way(self):
        driver = self.driver("killed", "killed.jsonl", chunk=2)
        folder = os.path.join(self.folder, "killed")
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline and driver.poll() is None:
            if os.path.isdir(folder) and len(os.listdir(folder)) >= 6:
                break
            time.sleep(0.02)
        self.assertIsNone(driver.poll(), "the batch ended before a worker could be killed")
        victim = self.workers[0]
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        stdout, stderr = driver.communicate(timeout=DEADLINE)
        self.assertEqual(driver.returncode, 0, stderr)
        self.check("killed", "killed.jsonl")

    def test_3_damaged_and_failed_files_are_counted_and_named(self):
        # A JPEG cut short (the decoder patches it up: damaged), a file that is no image (failed),
        # and two good ones, on the worker left from test 2.
        with open(os.path.join(REPO, "Tests", "TestSupport", "Fixtures", "jpeg", "testorig.jpg"), "rb") as jpeg:
            data = jpeg.read()
        with open(os.path.join(self.folder, "cut.jpg"), "wb") as out:
            out.write(data[: len(data) * 2 // 3])
        with open(os.path.join(self.folder, "notes.png"), "w") as out:
            out.write("not an image\n")
        with open(os.path.join(self.folder, "mixed.txt"), "w") as out:
            out.write("img00.png\ncut.jpg\nnotes.png\nimg01.png\n")
        driver = self.driver("mixed", "mixed.jsonl", chunk=2, manifest="mixed.txt")
        stdout, stderr = driver.communicate(timeout=DEADLINE)
        self.assertEqual(driver.returncode, 1, "a failed file fails the batch")
        self.assertIn("4 files: 3 ok (1 damaged), 0 skipped, 1 failed", stdout)
        named = {line.split(":", 1)[0].strip(): line.split(":", 1)[1] for line in stdout.splitlines()
                 if line.startswith("  ") and ":" in line}
        self.assertIn("damaged: ", named.get(os.path.join(self.folder, "cut.jpg"), named.get("cut.jpg", "")), stdout)
        self.assertTrue(named.get(os.path.join(self.folder, "notes.png"), named.get("notes.png", "")).strip(), stdout)
        with open(os.path.join(self.folder, "mixed.jsonl")) as text:
            lines = {os.path.basename(entry["input"]): entry for entry in map(json.loads, text)}
        self.assertEqual(sorted(lines), ["cut.jpg", "img00.png", "img01.png", "notes.png"])
        self.assertTrue(lines["cut.jpg"]["damaged"], lines["cut.jpg"])
        self.assertTrue(lines["cut.jpg"]["warnings"], lines["cut.jpg"])
        self.assertEqual(lines["notes.png"]["status"], "failed")
        self.assertFalse(lines["img00.png"].get("warnings"), lines["img00.png"])

    def test_4_a_mistyped_fgrun_option_gets_a_suggestion(self):
        driver = self.driver("typo", "typo.jsonl", chunk=5, extra=("--qualty", "80"))
        stdout, stderr = driver.communicate(timeout=DEADLINE)
        self.assertNotEqual(driver.returncode, 0)
        self.assertIn("--quality", stderr)
        self.assertFalse(os.path.exists(os.path.join(self.folder, "typo")) and os.listdir(os.path.join(self.folder, "typo")),
                         "nothing written")


if __name__ == "__main__":
    unittest.main()
