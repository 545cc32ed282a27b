#!/bin/bash -eu
# ClusterFuzzLite's build step (its Dockerfile copies this file to $SRC).
# The build itself is hack/oss-fuzz/build.sh, shared with OSS-Fuzz.
exec "$SRC/lbstatus/hack/oss-fuzz/build.sh"
