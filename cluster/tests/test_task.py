"""The task's safety without a cluster: a killed worker takes its fgrun with it (the parent-death
signal), leaves no chunk folder behind once swept, and the driver keeps fgrun's warnings with the
input they are about. A stand-in fgrun (a shell script that records its pid and sleeps) plays
fgrun's part, so no Dask is needed.
"""

import io
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

CLUSTER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, CLUSTER)

from fgrun_cluster import driver, task  # noqa: E402


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purpose.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ", 1)[1][0] != "Z"


class TaskTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="fgrun-task-test-")
        self.fake = os.path.join(self.folder, "fgrun")
        with open(self.fake, "w") as script:
            script.write(f"#!/bin/sh\necho $$ > {self.folder}/fgrun.pid\nexec sleep 60\n")
        os.chmod(self.fake, 0o755)

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.folder])

    def test_a_killed_worker_takes_its_fgrun_and_its_chunk_folder_is_swept(self):
        temp = os.path.join(self.folder, "tmp")
        os.mkdir(temp)
        worker = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(f"""
                import sys; sys.path.insert(0, {CLUSTER!r})
                from fgrun_cluster.task import run_chunk
                run_chunk(["a.png"], "r.txt", [], fgrun={self.fake!r})
                """)],
            env={**os.environ, "TMPDIR": temp})
        pid_file = os.path.join(self.folder, "fgrun.pid")
        deadline = time.monotonic() + 20
        while not os.path.exists(pid_file) or not open(pid_file).read().strip():
            self.assertLess(time.monotonic(), deadline, "the stand-in fgrun never started")
            time.sleep(0.05)
        fgrun_pid = int(open(pid_file).read())
        left = [name for name in os.listdir(temp) if name.startswith(task.CHUNK_PREFIX)]
        self.assertEqual(len(left), 1)
        self.assertTrue(left[0].startswith(f"{task.CHUNK_PREFIX}{worker.pid}-"), left)
        worker.kill()  # SIGKILL: no cleanup runs in the worker
        worker.wait()
        deadline = time.monotonic() + 10
        while _alive(fgrun_pid):
            self.assertLess(time.monotonic(), deadline, "fgrun outlived its worker")
            time.sleep(0.05)
        # The folder is still there; a sweep removes it, and leaves a live process's folder alone.
        mine = os.path.join(temp, f"{task.CHUNK_PREFIX}{os.getpid()}-x")
        os.mkdir(mine)
        self.assertEqual(task.remove_stale_chunks(temp), 1)
        self.assertEqual(os.listdir(temp), [os.path.basename(mine)])

    def test_warnings_stay_with_their_input(self):
        stderr = "fgrun: warning: a.jpg: Premature end of JPEG file\nfgrun: warning: something else\nother\n"
        found = driver.warnings_by_input(stderr, ["/photos/a.jpg", "/photos/b.jpg"])
        self.assertEqual(found["/photos/a.jpg"], ["a.jpg: Premature end of JPEG file"])
        self.assertEqual(found[None], ["something else"])
        self.assertNotIn("/photos/b.jpg", found)

    def test_progress_line_only_on_a_terminal(self):
        quiet = io.StringIO()
        progress = driver.Progress(quiet, total=10)
        progress.update(3, 1, force=True)
        progress.finish()
        self.assertEqual(quiet.getvalue(), "")

        class Terminal(io.StringIO):
            def isatty(self):
                return True

        shown = Terminal()
        progress = driver.Progress(shown, total=10)
        progress.update(5, 1, force=True)
        line = shown.getvalue()
        self.assertTrue(line.startswith("\r5/10 files, "), line)
        self.assertIn("1 failed", line)
        self.assertIn("ETA", line)
        self.assertNotIn("\n", line)

    def test_the_dashboard_answers_when_asked(self):
        # --local N --dashboard ADDRESS: Dask's status page is served (bokeh is installed by
        # scripts/install-cluster-deps.sh; without it the driver says so instead of serving nothing).
        import urllib.request

        cluster = driver.start_local_cluster(1, "127.0.0.1:0")
        try:
            link = cluster.dashboard_link
            self.assertTrue(link.startswith("http://127.0.0.1:"), link)
            direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, never a proxy
            with direct.open(link, timeout=30) as page:
                self.assertEqual(page.status, 200)
                self.assertIn(b"Dask", page.read())
        finally:
            cluster.close()


if __name__ == "__main__":
    unittest.main()
