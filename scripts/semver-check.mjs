#!/usr/bin/env node
/**
 * Semantic versioning, enforced: compares the API reports of every published package
 * (`packages/<pkg>/api/*.api.md`, written by `pnpm api:report`) with the same reports at the last
 * release, and fails when the public surface changed more than the pending changesets (or the
 * version in `package.json`) say. The rules, and the deprecation policy behind the last one, are in
 * RELEASING.md:
 *
 * - an export removed (or a whole entry), an export whose kind changed, a declaration changed in a
 *   way existing code can notice (a member or parameter removed or retyped, a new required member or
 *   parameter, a union narrowed) → **major**;
 * - an export added, or a declaration that only grew (a new optional member or trailing parameter,
 *   a new overload, a union widened, a new member of a class or a constant object) → **minor**;
 * - a removed export must have been marked `@deprecated` in the release it is removed from
 *   (its report heading says `deprecated`), even in a major.
 *
 * The last release is the newest release tag reachable from HEAD: `v<version>` or
 * `@gatehousejs/<pkg>@<version>` (what `changeset publish` creates), highest version first; `--base
 * <ref>` names another (a branch, a commit). With no release tag there is nothing to break yet: the
 * check says so and passes. A shallow clone without the tag cannot tell, and says so too.
 *
 * A package's bump is granted by the changesets in `.changeset/` that name it (the largest), or by
 * its `package.json` version having moved past the base's (after `pnpm release:version`).
 *
 *   node scripts/semver-check.mjs [--base <ref>] [--root <repository>]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The TypeScript parser, loaded only when a declaration changed (most runs compare equal texts). */
let ts;

/** The repository checked (`--root`, else this script's). */
let root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const git = (...args) =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const gitOrNull = (...args) => {
  try {
    return git(...args);
  } catch {
    return null;
  }
};

const LEVELS = ['none', 'patch', 'minor', 'major'];
const higher = (a, b) => (LEVELS.indexOf(a) >= LEVELS.indexOf(b) ? a : b);

// ── Reports ────────────────────────────────────────────────────────────────────────────────────

/** A report's exports: name → `{ kind, deprecated, code }` (the declarations' text). */
function parseReport(text) {
  const exports = new Map();
  const sections = text.split(/^## /m).slice(1);
  for (const section of sections) {
    const heading = /^`([^`]+)` \(([^,)]+)(, deprecated)?\)/.exec(section);
    if (!heading) continue;
    const code = /```ts\n([\s\S]*?)\n```/.exec(section)?.[1] ?? '';
    exports.set(heading[1], { kind: heading[2], deprecated: Boolean(heading[3]), code });
  }
  return exports;
}

// ── Declarations: what changed, and how much ─────────────────────────────────────────────────────

let printer;
function textOf(node, file) {
  printer ??= ts.createPrinter({ removeComments: true });
  return printer.printNode(ts.EmitHint.Unspecified, node, file).replace(/\s+/g, ' ');
}

/** A member's key: its name, or what kind of signature it is. */
function memberKey(member, file) {
  if (ts.isConstructorDeclaration(member)) return 'constructor';
  if (ts.isCallSignatureDeclaration(member)) return '()';
  if (ts.isConstructSignatureDeclaration(member)) return 'new()';
  if (ts.isIndexSignatureDeclaration(member))
    return `[${member.parameters.map((p) => textOf(p.type, file)).join()}]`;
  return member.name ? member.name.getText(file) : textOf(member, file);
}

const isOptionalMember = (member) => Boolean(member.questionToken);

/** Members as `key → [text…]` (overloads keep one text each). */
function membersOf(members, file) {
  const map = new Map();
  for (const member of members) {
    const key = memberKey(member, file);
    if (!map.has(key)) map.set(key, []);
    map.get(key).push({ text: textOf(member, file), member });
  }
  return map;
}

/** A signature without its body: type parameters, parameters (text, optional), return type. */
function signatureOf(node, file) {
  return {
    head: `${(node.typeParameters ?? []).map((t) => textOf(t, file)).join()}|${node.type ? textOf(node.type, file) : ''}`,
    params: node.parameters.map((p) => ({
      text: textOf(p, file),
      optional: Boolean(p.questionToken || p.initializer || p.dotDotDotToken),
    })),
  };
}

/** `next` accepts every call `previous` accepted: same head, same parameters, only optional ones added. */
function extendsSignature(previous, next) {
  if (previous.head !== next.head || next.params.length < previous.params.length) return false;
  return (
    previous.params.every((p, i) => p.text === next.params[i].text) &&
    next.params.slice(previous.params.length).every((p) => p.optional)
  );
}

/**
 * How `after` differs from `before` (both one export's declarations): `none`, `minor` (it only grew)
 * or `major`, with the reasons.
 */
function compareDeclarations(name, before, after) {
  if (before.code === after.code) return { level: 'none', reasons: [] };
  if (before.kind !== after.kind)
    return { level: 'major', reasons: [`${name}: was a ${before.kind}, now a ${after.kind}`] };
  const a = ts.createSourceFile('before.d.ts', before.code, ts.ScriptTarget.Latest, true);
  const b = ts.createSourceFile('after.d.ts', after.code, ts.ScriptTarget.Latest, true);
  const reasons = { major: [], minor: [] };
  const major = (why) => reasons.major.push(`${name}: ${why}`);
  const minor = (why) => reasons.minor.push(`${name}: ${why}`);

  /** Members of an interface, a class, a type literal, an enum, or a const typed by a literal. */
  const shapeOf = (file) => {
    const shape = { heads: [], members: [], signatures: [], unions: [], others: [] };
    for (const statement of file.statements) {
      if (ts.isInterfaceDeclaration(statement) || ts.isClassDeclaration(statement)) {
        shape.heads.push(
          `${ts.isClassDeclaration(statement) ? 'class' : 'interface'}<${(statement.typeParameters ?? []).map((t) => textOf(t, file)).join()}> ${(statement.heritageClauses ?? []).map((h) => textOf(h, file)).join(' ')} ${(ts.getModifiers(statement) ?? []).map((m) => m.getText(file)).join(' ')}`,
        );
        shape.members.push({ cls: ts.isClassDeclaration(statement), list: statement.members });
      } else if (ts.isEnumDeclaration(statement)) {
        shape.members.push({ cls: true, list: statement.members });
      } else if (ts.isTypeAliasDeclaration(statement)) {
        const params = (statement.typeParameters ?? []).map((t) => textOf(t, file)).join();
        if (ts.isTypeLiteralNode(statement.type)) {
          shape.heads.push(`type<${params}>`);
          shape.members.push({ cls: false, list: statement.type.members });
        } else if (ts.isUnionTypeNode(statement.type)) {
          shape.heads.push(`type<${params}>`);
          shape.unions.push(statement.type.types.map((t) => textOf(t, file)));
        } else shape.others.push(textOf(statement, file));
      } else if (ts.isFunctionDeclaration(statement)) {
        shape.signatures.push(signatureOf(statement, file));
      } else if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (declaration.type && ts.isTypeLiteralNode(declaration.type))
            shape.members.push({ cls: true, list: declaration.type.members });
          else shape.others.push(textOf(declaration, file));
        }
      } else shape.others.push(textOf(statement, file));
    }
    return shape;
  };
  const old = shapeOf(a);
  const now = shapeOf(b);

  if (old.heads.join('\n') !== now.heads.join('\n'))
    major('its type parameters, heritage or modifiers changed');
  if (old.others.join('\n') !== now.others.join('\n')) major('its declaration changed');

  // Members: every old one kept as it was; new ones optional (or of a class, an enum, a constant).
  const oldMembers = new Map();
  const newMembers = new Map();
  let classLike = false;
  for (const { list } of old.members) for (const [k, v] of membersOf(list, a)) oldMembers.set(k, v);
  for (const { cls, list } of now.members) {
    classLike ||= cls;
    for (const [k, v] of membersOf(list, b)) newMembers.set(k, v);
  }
  for (const [key, texts] of oldMembers) {
    const next = newMembers.get(key);
    if (!next) {
      major(`member ${key} removed`);
      continue;
    }
    for (const { text, member } of texts) {
      if (next.some((n) => n.text === text)) continue;
      // A method or constructor that only gained optional trailing parameters.
      const grown =
        (ts.isMethodSignature(member) ||
          ts.isMethodDeclaration(member) ||
          ts.isConstructorDeclaration(member)) &&
        next.some(
          (n) =>
            n.member.kind === member.kind &&
            Boolean(n.member.questionToken) === Boolean(member.questionToken) &&
            extendsSignature(signatureOf(member, a), signatureOf(n.member, b)),
        );
      if (grown) minor(`member ${key} gained optional parameters`);
      else major(`member ${key} changed: \`${text}\` → \`${next.map((n) => n.text).join(' / ')}\``);
    }
    for (const { text } of next)
      if (!texts.some((t) => t.text === text) && texts.length < next.length)
        minor(`member ${key}: overload added`);
  }
  for (const [key, texts] of newMembers) {
    if (oldMembers.has(key)) continue;
    const required = texts.some(({ member }) => !isOptionalMember(member));
    if (required && !classLike)
      major(`new required member ${key}: code that implements or builds ${name} no longer compiles`);
    else minor(`member ${key} added`);
  }

  // Unions: every old member still there.
  for (const [i, members] of old.unions.entries()) {
    const next = now.unions[i] ?? [];
    const gone = members.filter((m) => !next.includes(m));
    if (gone.length > 0) major(`union lost ${gone.join(' | ')}`);
    else if (next.length > members.length)
      minor(`union gained ${next.filter((m) => !members.includes(m)).join(' | ')}`);
  }

  // Functions: every old signature still callable the same way.
  for (const signature of old.signatures) {
    if (now.signatures.some((s) => JSON.stringify(s) === JSON.stringify(signature))) continue;
    if (now.signatures.some((s) => extendsSignature(signature, s))) minor('gained optional parameters');
    else major('a signature changed');
  }
  if (now.signatures.length > old.signatures.length) minor('overload added');

  if (reasons.major.length > 0) return { level: 'major', reasons: reasons.major };
  if (reasons.minor.length > 0) return { level: 'minor', reasons: reasons.minor };
  // Text differs, structure the same (formatting): nothing a user sees.
  return { level: 'none', reasons: [] };
}

// ── Baseline, changesets, versions ──────────────────────────────────────────────────────────────

function versionParts(version) {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version ?? '');
  return match ? match.slice(1, 4).map(Number) : null;
}

/** The bump from version `a` to `b`: `major`, `minor`, `patch` or `none`. */
function bumpBetween(a, b) {
  const [x, y] = [versionParts(a), versionParts(b)];
  if (!x || !y) return 'none';
  if (y[0] > x[0]) return 'major';
  if (y[0] === x[0] && y[1] > x[1]) return 'minor';
  if (y[0] === x[0] && y[1] === x[1] && y[2] > x[2]) return 'patch';
  return 'none';
}

/** The release tag to compare with: the highest version among release tags reachable from HEAD. */
function releaseBaseline() {
  const tags = (gitOrNull('tag', '--merged', 'HEAD', '--list', 'v[0-9]*', '@gatehousejs/*@[0-9]*') ?? '')
    .split('\n')
    .filter(Boolean)
    .map((tag) => ({ tag, version: versionParts(tag.replace(/^v|^@[^@]+@/, '')) }))
    .filter(({ version }) => version);
  tags.sort(
    (p, q) => q.version[0] - p.version[0] || q.version[1] - p.version[1] || q.version[2] - p.version[2],
  );
  return tags[0]?.tag ?? null;
}

/** Pending changesets: package name → the largest bump any of them asks for it. */
function pendingBumps() {
  const dir = join(root, '.changeset');
  const bumps = new Map();
  if (!existsSync(dir)) return bumps;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'README.md')) {
    const front = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(dir, file), 'utf8'))?.[1] ?? '';
    for (const line of front.split('\n')) {
      const match = /^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
      if (match) bumps.set(match[1], higher(bumps.get(match[1]) ?? 'none', match[2]));
    }
  }
  return bumps;
}

/** Published packages now: `{ dir, name, version }` (not `private`). */
function publishedPackages() {
  const packages = join(root, 'packages');
  return readdirSync(packages)
    .filter((dir) => existsSync(join(packages, dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(packages, dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => !manifest.private)
    .map(({ dir, manifest }) => ({ dir, name: manifest.name, version: manifest.version }));
}

/** The reports of `packages/<dir>/api/` at `ref` (file → text); empty when there were none. */
function reportsAt(ref, dir) {
  const listing = gitOrNull('ls-tree', '--name-only', `${ref}:packages/${dir}/api/`);
  const reports = new Map();
  for (const file of (listing ?? '').split('\n').filter((f) => f.endsWith('.api.md')))
    reports.set(file, git('show', `${ref}:packages/${dir}/api/${file}`));
  return reports;
}

function reportsNow(dir) {
  const api = join(root, 'packages', dir, 'api');
  const reports = new Map();
  if (existsSync(api))
    for (const file of readdirSync(api).filter((f) => f.endsWith('.api.md')))
      reports.set(file, readFileSync(join(api, file), 'utf8'));
  return reports;
}

// ── The check ───────────────────────────────────────────────────────────────────────────────────

async function main() {
  const { values } = parseArgs({ options: { base: { type: 'string' }, root: { type: 'string' } } });
  if (values.root) root = resolve(values.root);
  const base = values.base ?? releaseBaseline();
  if (!base) {
    if (gitOrNull('rev-parse', '--is-shallow-repository')?.trim() === 'true') {
      console.log(
        'semver: shallow clone without a release tag: fetch the tags (git fetch --tags) to compare',
      );
    } else {
      console.log(
        'semver: no release tag (v<version> or @gatehousejs/<pkg>@<version>) yet: no released API to compare',
      );
    }
    return 0;
  }
  if (gitOrNull('rev-parse', '--verify', '--quiet', `${base}^{commit}`) === null) {
    console.error(`semver: ${base} is not a commit here`);
    return 1;
  }

  const bumps = pendingBumps();
  let failed = false;
  const basePackages = new Set(
    (gitOrNull('ls-tree', '--name-only', `${base}:packages/`) ?? '').split('\n').filter(Boolean),
  );
  for (const pkg of publishedPackages()) {
    if (!basePackages.has(pkg.dir)) continue; // a new package: all of it is new
    const before = reportsAt(base, pkg.dir);
    if (before.size === 0) continue;
    const after = reportsNow(pkg.dir);
    const findings = { major: [], minor: [] };
    for (const [file, text] of before) {
      const entry = file.replace(/\.api\.md$/, '');
      const old = parseReport(text);
      const next = after.has(file) ? parseReport(after.get(file)) : new Map();
      if (!after.has(file)) findings.major.push(`entry ${entry} removed`);
      for (const [name, declaration] of old) {
        const now = next.get(name);
        if (!now) {
          findings.major.push(`${entry}: ${name} removed`);
          if (!declaration.deprecated) {
            failed = true;
            console.error(
              `semver: ${pkg.name}: ${entry}: ${name} removed without being deprecated in ${base} (RELEASING.md: deprecate in a minor, remove in the next major)`,
            );
          }
          continue;
        }
        if (declaration.code === now.code && declaration.kind === now.kind) continue;
        ts ??= (await import('typescript')).default;
        const { level, reasons } = compareDeclarations(name, declaration, now);
        if (level !== 'none') findings[level].push(...reasons.map((r) => `${entry}: ${r}`));
      }
      for (const name of next.keys()) if (!old.has(name)) findings.minor.push(`${entry}: ${name} added`);
    }
    for (const file of after.keys())
      if (!before.has(file)) findings.minor.push(`entry ${file.replace(/\.api\.md$/, '')} added`);

    const needed = findings.major.length > 0 ? 'major' : findings.minor.length > 0 ? 'minor' : 'none';
    if (needed === 'none') continue;
    const baseManifest = gitOrNull('show', `${base}:packages/${pkg.dir}/package.json`);
    const versionBump = baseManifest ? bumpBetween(JSON.parse(baseManifest).version, pkg.version) : 'none';
    const granted = higher(bumps.get(pkg.name) ?? 'none', versionBump);
    const enough = LEVELS.indexOf(granted) >= LEVELS.indexOf(needed);
    const say = enough ? console.log : console.error;
    say(
      `semver: ${pkg.name}: the API changed since ${base}, a ${needed} change; ${granted === 'none' ? 'no changeset names it' : `granted: ${granted}`}${enough ? '' : ` — add a changeset: pnpm changeset, ${pkg.name}: ${needed}`}`,
    );
    for (const line of findings.major) say(`  major  ${line}`);
    for (const line of findings.minor) say(`  minor  ${line}`);
    if (!enough) failed = true;
  }
  if (!failed) console.log(`semver: every API change since ${base} has its version bump`);
  return failed ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit(await main());
