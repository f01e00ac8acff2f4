"""Horovod's Gloo rendezvous server for tests/test_two_hosts.py, run inside the first "host" namespace.

    ip netns exec NS python tests/ranks/two_hosts_rendezvous.py 10.77.0.1:1,10.77.0.2:1

What `horovodrun --gloo` starts on the launching host: an HTTP key-value store where each rank posts
its Gloo address and reads its peers'. Prints `PORT <port>` and serves until stdin closes.
"""
import argparse
import sys

from horovod.runner.common.util.hosts import get_host_assignments, parse_hosts
from horovod.runner.http.http_server import RendezvousServer


def main():
    ap = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("hosts", help="host:slots,... as for horovodrun -H")
    args = ap.parse_args()
    hosts = parse_hosts(args.hosts)
    server = RendezvousServer()
    port = server.start()
    server.init(get_host_assignments(hosts, sum(h.slots for h in hosts)))
    print("PORT", port, flush=True)
    sys.stdin.read()  # the test closes our stdin (or dies) when the job is over
    server.stop()


if __name__ == "__main__":
    main()
