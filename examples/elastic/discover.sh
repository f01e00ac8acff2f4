#!/bin/sh
# Host discovery for examples/elastic/train_elastic.py on one machine: horovodrun runs this every second
# and starts or stops workers when its answer changes. Each line is "host:slots".
#
# Horovod blacklists the host of a worker that fails, for the rest of the job. Were this machine listed
# once ("localhost:3"), one killed worker would blacklist all three and end the job. So it is listed
# under three names that all resolve to this machine, one slot each: losing a worker loses one "host".
# Horovod starts workers without ssh only for names that resolve to an address of a local interface.
# On a cluster, print one line per node instead (e.g. from $PBS_NODEFILE or `scontrol show hostnames`).
#
# With $ELASTIC_HOSTS naming a file, print that file instead: editing it while the job runs removes or
# adds workers without a failure (docs/elastic.md).
if [ -n "$ELASTIC_HOSTS" ]; then
    cat "$ELASTIC_HOSTS"
    exit 0
fi
echo localhost:1
echo 127.0.0.1:1
addr=$(hostname -I 2>/dev/null | cut -d' ' -f1)
[ -n "$addr" ] && echo "$addr:1"
exit 0
