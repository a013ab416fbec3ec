#!/usr/bin/env node
// The `gatehouse-conformance` command. A committed file, so that a workspace install can link the
// command before the package is built; the command itself is the build's dist/cli.js.
import '../dist/cli.js';
