"""Two "hosts" on one machine: network namespaces joined by a veth pair (tests/test_two_hosts.py).

Each namespace is one host: its own address on an interface called `hk0` in both (like eth0 on every
node), and its own hosts file -- `ip netns exec` bind-mounts /etc/netns/NS/hosts over /etc/hosts --
in which the machine's hostname resolves to that host's address, as on a real node. That matters:
Horovod 0.28.1 builds the Gloo context of its global process set from the hostname's address, not
from HOROVOD_GLOO_IFACE; with this machine's /etc/hosts (hostname -> 127.0.0.1) the ranks try to
meet on loopback, each in its own namespace, and fail after the Gloo timeout. Host names are the
namespace names, so an mpirun agent can enter the namespace named by the host (ranks/two_hosts_agent.sh).
"""
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import time

IP = shutil.which("ip") or "/usr/sbin/ip"
IFACE = "hk0"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RENDEZVOUS = os.path.join(HERE, "ranks", "two_hosts_rendezvous.py")
AGENT = os.path.join(HERE, "ranks", "two_hosts_agent.sh")


class Unavailable(RuntimeError):
    """Network namespaces cannot be created here (not root, no `ip`, a container without CAP_SYS_ADMIN)."""


def _ip(*args):
    proc = subprocess.run([IP, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, [IP, *args], proc.stdout, proc.stderr)
    return proc.stdout


class TwoHosts:
    """Two namespaces `<tag>a` and `<tag>b` with addresses <subnet>.1 and <subnet>.2 on a veth pair."""

    def __init__(self, subnet="10.77.0"):
        tag = f"hk{os.getpid()}"  # concurrent test runs get their own pair; addresses may repeat
        self.names = [f"{tag}a", f"{tag}b"]
        self.addrs = [f"{subnet}.1", f"{subnet}.2"]
        self.iface = IFACE
        self._created = []

    def create(self):
        if not os.path.exists(IP):
            raise Unavailable(f"no `ip` command (looked for {IP}): install iproute2")
        try:
            for name in self.names:
                _ip("netns", "add", name)
                self._created.append(name)
        except subprocess.CalledProcessError as e:
            self.close()
            raise Unavailable(f"`{' '.join(e.cmd)}` failed: {e.stderr.strip()}") from None
        a, b = self.names
        # Both ends are created inside their namespaces, so the shared name never meets the root's links.
        _ip("link", "add", IFACE, "netns", a, "type", "veth", "peer", "name", IFACE, "netns", b)
        for name, addr in zip(self.names, self.addrs):
            _ip("-n", name, "addr", "add", f"{addr}/24", "dev", IFACE)
            _ip("-n", name, "link", "set", "lo", "up")
            _ip("-n", name, "link", "set", IFACE, "up")
            os.makedirs(f"/etc/netns/{name}", exist_ok=True)
            with open(f"/etc/netns/{name}/hosts", "w") as f:
                f.write(f"127.0.0.1 localhost\n{addr} {socket.gethostname()} {name}\n")
                f.writelines(f"{o_addr} {o_name}\n" for o_name, o_addr in zip(self.names, self.addrs) if o_name != name)
        self.wait_link()
        return self

    def wait_link(self, timeout=10):
        """Until both ends carry traffic (a veth end reports NO-CARRIER for a moment after `up`)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if all("LOWER_UP" in _ip("-n", n, "link", "show", IFACE) for n in self.names):
                return
            time.sleep(0.1)
        raise RuntimeError(f"veth {IFACE} between {self.names} did not come up within {timeout} s")

    def exec_argv(self, host, argv):
        """argv run inside host `host` (0 or 1)."""
        return [IP, "netns", "exec", self.names[host], *argv]

    def sysctl(self, key, value, hosts=(0, 1)):
        """Set a per-namespace kernel setting (net.*) on `hosts`; the machine's own stays untouched."""
        for host in hosts:
            subprocess.run(self.exec_argv(host, ["sysctl", "-q", "-w", f"{key}={value}"]), check=True,
                           capture_output=True)

    def cut(self, host=0):
        """Pull the cable: take host's end of the veth down (the peer then sees NO-CARRIER)."""
        _ip("-n", self.names[host], "link", "set", IFACE, "down")
        return time.time()

    def pids(self):
        """Per host, the processes still running inside it."""
        return [[int(p) for p in _ip("netns", "pids", name).split()] for name in self._created]

    def close(self):
        # Whatever a test left on a host (an orted cut off from its mpirun) would outlive the namespace.
        for pid in (p for host in self.pids() for p in host):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for name in self._created:
            subprocess.run([IP, "netns", "del", name], capture_output=True)
            shutil.rmtree(f"/etc/netns/{name}", ignore_errors=True)
        self._created = []
        try:
            os.rmdir("/etc/netns")  # only if no one else keeps files there
        except OSError:
            pass


class Job:
    """Processes of one launch; each rank's (or the launcher's) output goes to a file in `out_dir`."""

    def __init__(self, out_dir):
        self.out_dir, self.procs, self.helpers = out_dir, {}, []

    def spawn(self, key, argv, env):
        out = open(os.path.join(self.out_dir, f"{key}.out"), "w")
        err = open(os.path.join(self.out_dir, f"{key}.err"), "w")
        self.procs[key] = subprocess.Popen(argv, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                           start_new_session=True)

    def output(self, key, stream="out"):
        with open(os.path.join(self.out_dir, f"{key}.{stream}")) as f:
            return f.read()

    def wait_for(self, text, timeout):
        """Until some process printed `text` on stdout; False if all ended or time ran out first."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if any(text in self.output(k) for k in self.procs):
                return True
            if all(p.poll() is not None for p in self.procs.values()):
                return False
            time.sleep(0.05)
        return False

    def wait(self, timeout):
        """{key: (returncode, unix time it was seen ended)}; returncode None for those still running at the deadline."""
        deadline, ended = time.time() + timeout, {}
        while len(ended) < len(self.procs) and time.time() < deadline:
            for key, proc in self.procs.items():
                if key not in ended and proc.poll() is not None:
                    ended[key] = (proc.returncode, time.time())
            time.sleep(0.05)
        return {k: ended.get(k, (None, None)) for k in self.procs}

    def kill(self):
        for proc in [*self.procs.values(), *self.helpers]:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, 9)  # the process group: ip netns exec, its python, mpirun's orted
                except ProcessLookupError:
                    pass
                proc.wait()


def rank_env(extra=None):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="2")
    env.update(extra or {})
    return env


def start_gloo(hosts, job, script, args=(), env=None, timeout=60):
    """What `horovodrun --gloo -H a:1,b:1` does, minus ssh: Horovod's rendezvous server on host 0, then
    one rank per host with the variables horovodrun gives each rank (taken from horovod.runner itself)."""
    from horovod.runner.common.util.hosts import get_host_assignments, parse_hosts
    from horovod.runner.gloo_run import create_run_env_vars, create_slot_env_vars

    spec = ",".join(f"{name}:1" for name in hosts.names)
    server = subprocess.Popen(hosts.exec_argv(0, [sys.executable, RENDEZVOUS, spec]), env=rank_env(),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True)
    job.helpers.append(server)
    ready, _, _ = select.select([server.stdout], [], [], timeout)
    line = server.stdout.readline() if ready else ""
    if not line.startswith("PORT "):
        raise RuntimeError(f"rendezvous server did not start: {line!r}")
    run_vars = create_run_env_vars(hosts.addrs[0], [hosts.iface], line.split()[1])
    for slot in get_host_assignments(parse_hosts(spec), len(hosts.names)):
        variables = {**{k: str(v) for k, v in run_vars.items()}, **create_slot_env_vars(slot)}
        job.spawn(f"rank{slot.rank}", hosts.exec_argv(hosts.names.index(slot.hostname),
                                                      [sys.executable, script, *map(str, args)]),
                  rank_env({**(env or {}), **variables}))
    return job


def start_mpirun(hosts, job, script, args=(), env=None, mca=()):
    """`mpirun -H a,b` started on host 0, reaching host 1 through an agent that enters its namespace
    (where a cluster would use ssh); OpenMPI's TCP traffic pinned to the veth."""
    from hvdkit.scale import launch

    env = rank_env(launch.child_env(len(hosts.names), {**os.environ, **(env or {})}))
    extra = ("-H", ",".join(hosts.names), "--mca", "plm_rsh_agent", AGENT, "--mca", "btl_tcp_if_include",
             hosts.iface, "--mca", "oob_tcp_if_include", hosts.iface, "--tag-output",
             *[x for name, value in mca for x in ("--mca", name, str(value))])
    argv = launch.command(len(hosts.names), [sys.executable, script, *map(str, args)], "mpirun", extra=extra,
                          env_names=["PYTHONPATH", "PYTHONUNBUFFERED", "OMP_NUM_THREADS",
                                     *sorted(k for k in env if k.startswith("HOROVOD_"))])
    job.spawn("mpirun", hosts.exec_argv(0, argv), env)
    return job
