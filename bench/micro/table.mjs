/** Prints a tinybench result as a Markdown table: mean and median latency (µs) and ops/s. */
export function printTable(title, bench) {
  console.log(`\n### ${title} (Node ${process.version})\n`);
  console.log('| task | mean µs | median µs | ops/s | samples |');
  console.log('|---|---:|---:|---:|---:|');
  for (const task of bench.tasks) {
    const result = task.result;
    if (!result || result.error || !result.latency) {
      console.log(`| ${task.name} | error: ${result?.error?.message ?? 'no result'} | | | |`);
      continue;
    }
    const us = (ms) => (ms * 1000).toFixed(2);
    console.log(
      `| ${task.name} | ${us(result.latency.mean)} | ${us(result.latency.p50)} | ` +
        `${Math.round(result.throughput.mean).toLocaleString('en')} | ${result.latency.samplesCount ?? result.latency.samples?.length ?? '?'} |`,
    );
  }
}
