/**
 * Preloaded (`--import`) into a server under test by `startDemoServer({ sampled })`: answers a
 * `gatehouse:sample` IPC message with the process's heap after a full garbage collection (the
 * process runs with `--expose-gc`) and its CPU time, so that a test can hold the server to a budget.
 */
process.on('message', (message) => {
  if (message !== 'gatehouse:sample') return;
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  process.send?.({ heapUsedBytes: process.memoryUsage().heapUsed, cpuMs: (cpu.user + cpu.system) / 1000 });
});
