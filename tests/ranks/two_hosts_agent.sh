#!/bin/sh
# OpenMPI's remote-shell agent for tests/test_two_hosts.py: "ssh" into a host that is a network namespace.
#
#   mpirun -H hkNa,hkNb --mca plm_rsh_agent tests/ranks/two_hosts_agent.sh ...
#
# mpirun calls it as `agent HOST COMMAND...` to start its daemon (orted) on HOST; the hosts are named
# after their namespaces (tests/netns.py), so entering the namespace is the whole "login".
host=$1
shift
exec /usr/sbin/ip netns exec "$host" /bin/sh -c "$*"
