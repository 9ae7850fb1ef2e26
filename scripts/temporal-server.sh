#!/usr/bin/env bash
# contrib/temporal's tests against a real Temporal server: the ones the
# gate (.ci/run) does not run.
#
#   bash scripts/temporal-server.sh                   # all of them
#   bash scripts/temporal-server.sh -run TestAWorker  # go test flags pass through
#   bash scripts/temporal-server.sh -run TestTheLoopOnARealServerSendsWorkBackOnce -update-history
#                                                    # re-record testdata/loop-history.json
#
# The tests tagged temporalserver (contrib/temporal/server_*_test.go) start
# contrib/temporal/testserver (go.temporal.io/server/temporaltest: frontend,
# history, matching, an in-memory SQLite store) and prove what only a server
# does: a worker process killed with SIGKILL mid-dispatch, its activity
# given to a new worker after the heartbeat timeout, which resumes it; the
# loop outliving its client's process; the loop's history as a server
# records it. The gate runs the same code of ours in the SDK's in-process
# test environment instead (docs/testing.md says why: compiling the server
# is at least 1,150 CPU seconds cold, half of what a cold gate gets beside
# two burners on two cores).
#
# The server is built first, as the tests build it (no cgo, -trimpath, so
# the tests' own build only links): 1,524 packages the gate never compiles
# (AWS and Google Cloud SDKs, Cassandra, Elasticsearch, MySQL, PostgreSQL,
# modernc.org/sqlite). Cold, count on 15 minutes or more on two cores;
# with the build cache warm, seconds. Needs tmux (CI=1 makes its absence a
# failure, as in the gate).
set -euo pipefail
cd "$(dirname "$0")/../contrib/temporal"
export PATH="/usr/local/go/bin:$PATH"

start=$SECONDS
echo "building the test server (contrib/temporal/testserver)..."
(cd testserver && CGO_ENABLED=0 go vet -trimpath ./...)
echo "test server compiled in $((SECONDS - start)) s"
go vet -tags temporalserver ./...
go test -race -tags temporalserver -timeout 30m ./... "$@"
