#!/usr/bin/env bash
# Kept for the commands in older docs: scripts/install-cli.sh claude (see there).
exec bash "$(dirname "$0")/install-cli.sh" claude "$@"
