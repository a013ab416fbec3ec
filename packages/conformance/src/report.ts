/**
 * A run's results as people and CI read them: a plain summary ending in
 * `N passed, N failed, N skipped` (each failure with its section and the request and response
 * that showed it; warnings listed apart, as the OpenID Foundation's suite keeps them apart), and
 * JUnit XML (one test case per module; warnings in `system-out`, never failures).
 */
import type { Exchange, Finding, PlanResult } from './types.js';

const BODY_SHOWN = 600;

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

function clip(text: string): string {
  return text.length > BODY_SHOWN ? `${text.slice(0, BODY_SHOWN)}… (${text.length} characters)` : text;
}

/** The request and response of an exchange, as a few readable lines. */
export function describeExchange(exchange: Exchange): string {
  const { request, response } = exchange;
  const lines = [`request:  ${request.method} ${request.url}`];
  for (const [name, value] of Object.entries(request.headers)) {
    lines.push(`          ${name}: ${name === 'authorization' ? `${value.split(' ')[0]} …` : value}`);
  }
  if (request.body) lines.push(`          ${clip(request.body)}`);
  if (response) {
    lines.push(`response: ${response.status}`);
    for (const name of [
      'content-type',
      'location',
      'www-authenticate',
      'cache-control',
      'content-location',
    ]) {
      if (response.headers[name]) lines.push(`          ${name}: ${response.headers[name]}`);
    }
    if (response.body) lines.push(indent(clip(response.body), '          '));
  } else if (exchange.error) {
    lines.push(`response: none (${exchange.error})`);
  }
  return lines.join('\n');
}

function describeFinding(finding: Finding): string {
  const head = `[${finding.section}] ${finding.message}`;
  return finding.exchange ? `${head}\n${indent(describeExchange(finding.exchange), '    ')}` : head;
}

/** Counts of a run. */
export function counts(result: PlanResult): {
  passed: number;
  failed: number;
  skipped: number;
  warnings: number;
} {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let warnings = 0;
  for (const module of result.modules) {
    if (module.outcome === 'passed') passed++;
    else if (module.outcome === 'failed') failed++;
    else skipped++;
    warnings += module.warnings.length;
  }
  return { passed, failed, skipped, warnings };
}

/** The plain summary; its last line is `N passed, N failed, N skipped`. */
export function summary(result: PlanResult): string {
  const out: string[] = [`${result.plan} against ${result.issuer}`, ''];
  for (const module of result.modules) {
    const note =
      module.outcome === 'skipped'
        ? ` (${module.skipReason})`
        : module.warnings.length > 0
          ? ` (${module.warnings.length} warning${module.warnings.length === 1 ? '' : 's'})`
          : '';
    out.push(`${module.outcome.padEnd(8)} ${module.module}${note}`);
  }
  const failed = result.modules.filter((module) => module.outcome === 'failed');
  if (failed.length > 0) {
    out.push('', 'Failures:');
    for (const module of failed) {
      out.push('', `${module.module}:`);
      for (const finding of module.failures) out.push(indent(describeFinding(finding), '  '));
    }
  }
  const warned = result.modules.filter((module) => module.warnings.length > 0);
  if (warned.length > 0) {
    out.push('', 'Warnings (not failures):');
    for (const module of warned) {
      out.push('', `${module.module}:`);
      for (const finding of module.warnings) out.push(indent(describeFinding(finding), '  '));
    }
  }
  const c = counts(result);
  out.push('', `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
  return out.join('\n');
}

function xml(text: string): string {
  // XML 1.0 §2.2: only tab, line feed, carriage return and the printable planes may appear.
  const allowed = (c: number) =>
    c === 9 ||
    c === 10 ||
    c === 13 ||
    (c >= 0x20 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd) ||
    c >= 0x10000;
  return Array.from(text)
    .filter((char) => allowed(char.codePointAt(0)!))
    .join('')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** JUnit XML: one `testsuite` (the plan), one `testcase` per module. */
export function junit(result: PlanResult): string {
  const c = counts(result);
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const cases = result.modules.map((module) => {
    const open = `  <testcase classname="${xml(result.plan)}" name="${xml(module.module)}" time="${seconds(module.durationMs)}">`;
    const body: string[] = [];
    if (module.outcome === 'failed') {
      const first = module.failures[0]!;
      body.push(
        `    <failure message="${xml(`[${first.section}] ${first.message}`)}" type="${xml(first.section)}">${xml(module.failures.map(describeFinding).join('\n\n'))}</failure>`,
      );
    } else if (module.outcome === 'skipped') {
      body.push(`    <skipped message="${xml(module.skipReason ?? '')}"/>`);
    }
    const out = [
      `sections: ${module.sections.join(' ')}`,
      ...module.warnings.map((w) => `WARNING ${describeFinding(w)}`),
    ];
    body.push(`    <system-out>${xml(out.join('\n'))}</system-out>`);
    return [open, ...body, '  </testcase>'].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="gatehouse-conformance" tests="${result.modules.length}" failures="${c.failed}" skipped="${c.skipped}" time="${seconds(result.durationMs)}">`,
    ` <testsuite name="${xml(result.plan)}" tests="${result.modules.length}" failures="${c.failed}" errors="0" skipped="${c.skipped}" timestamp="${xml(result.startedAt)}" time="${seconds(result.durationMs)}">`,
    `  <properties><property name="issuer" value="${xml(result.issuer)}"/></properties>`,
    ...cases,
    ' </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
