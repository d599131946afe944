// loadConfig(readEnvironment(env, dotenvPath)): defaults, every problem reported at once by variable and purpose, the
// .env file under the environment, the reference-server shortcut, and the list of secrets.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { SERVER_SETTINGS } from '../../reference/config.ts';
import { referenceProblems } from '../reference-server.ts';
import { ConfigError, loadConfig, mutationConfig, readEnvironment, REPLAY_BASE_URL, replayNotice, secretsOf, SETTINGS, type Target } from '../config/config.ts';
import { API_VERSION, REPLACEMENT_EXECUTE_PATH } from '../contract/contract.ts';

const DIR = mkdtempSync(join(tmpdir(), 'suite-config-'));
after(() => rmSync(DIR, { recursive: true, force: true }));

let files = 0;
/** A .env file with these lines. */
function dotenv(lines: Record<string, string>): string {
  const path = join(DIR, `env-${++files}`);
  writeFileSync(path, Object.entries(lines).map(([name, value]) => `${name}=${value}\n`).join(''));
  return path;
}

/** An empty .env, so no developer's .env in the working directory takes part. */
const NO_DOTENV = false as const;

/** The configuration of an environment and a .env file, as the suite reads them. */
const configOf = (env: Record<string, string>, dotenvPath: string | false) => {
  const { values, strays } = readEnvironment(env, dotenvPath);
  return loadConfig(values, strays);
};

/** Every variable a live target needs, with plausible values. */
const LIVE: Record<string, string> = {
  SUITE_MODE: 'live',
  BASE_URL: 'https://staging.example.test/api/',
  LOCATION_ID: 'loc-1',
  CONVERSATION_ID: 'conv-1',
  CONTACT_ID: 'contact-1',
  AGENT_ID: 'agent-1',
  ACCESS_TOKEN: 'access-token-secret',
  FILES_READONLY_TOKEN: 'files-token-secret',
  NO_FILES_SCOPE_TOKEN: 'nofiles-token-secret',
};

type Settings = Record<string, { env: string; purpose: string; requiredForTarget?: boolean; secret?: boolean }>;
const ALL: Settings = SETTINGS;
const REQUIRED = Object.values(ALL).filter((setting) => setting.requiredForTarget);

/** The message of the ConfigError thrown for this environment. */
function problemsOf(env: Record<string, string>, dotenvPath: string | false = NO_DOTENV): string {
  let message = '';
  assert.throws(
    () => configOf(env, dotenvPath),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
      message = error.message;
      return true;
    },
  );
  return message;
}

describe('defaults', () => {
  test('nothing set: replay of fixtures/, Version v3, the contract replacement path, 30 s timeout, the recorded target', () => {
    const { target, ...config } = configOf({}, NO_DOTENV);
    const contractUrl = pathToFileURL(resolve('reports', 'contract.html')).href;
    assert.deepEqual(config, { mode: 'replay', apiVersion: API_VERSION, replacementPath: REPLACEMENT_EXECUTE_PATH, locationTokenBody: SETTINGS.locationTokenBody.default, requestTimeoutMs: 30_000, fixturesDir: 'fixtures', reportsDir: 'reports', contractUrl, slow: false, skipPreflight: false, stateDir: '.conformance-state', generator: { seed: 1, from: 'the fixed seed of replay' }, depth: { deep: false }, shrinkMs: 90_000, ci: false, githubStepSummary: undefined, rateLimit: 50, maxRetries: 3 });
    assert.equal(target?.baseUrl, REPLAY_BASE_URL);
    assert.equal(target?.tokens.access, '<ACCESS_TOKEN>', 'replay sends each token as its placeholder');
  });

  test('GENERATOR_SEED is taken as given; live, it is the commit\'s; a seed that is not a whole number is named', () => {
    assert.deepEqual(configOf({ GENERATOR_SEED: '42' }, NO_DOTENV).generator, { seed: 42, from: 'GENERATOR_SEED' });
    assert.match(configOf(LIVE, NO_DOTENV).generator.from, /^commit [0-9a-f]{7}$/);
    assert.match(problemsOf({ GENERATOR_SEED: 'abc' }), /GENERATOR_SEED=abc is not a whole number of at most 9 digits: the seed of the requests drawn/);
  });

  test('SHRINK_SECONDS: 90 s by default, 0 for no shrinking; anything but a number of seconds is named', () => {
    assert.equal(configOf({ SHRINK_SECONDS: '0' }, NO_DOTENV).shrinkMs, 0);
    assert.equal(configOf({ SHRINK_SECONDS: '2.5' }, NO_DOTENV).shrinkMs, 2500);
    assert.match(problemsOf({ SHRINK_SECONDS: '-1' }), /SHRINK_SECONDS=-1 is not a number of seconds \(0 or more\): how long a failure/);
    assert.match(problemsOf({ SHRINK_SECONDS: 'soon' }), /SHRINK_SECONDS=soon is not a number of seconds/);
  });

  test('the configuration is frozen, its target too', () => {
    const config = configOf({}, NO_DOTENV);
    assert.ok(Object.isFrozen(config) && Object.isFrozen(config.target) && Object.isFrozen(config.target?.tokens));
  });

  test('blank values count as unset', () => {
    const config = configOf({ SUITE_MODE: ' ', API_VERSION: '', REQUEST_TIMEOUT_MS: '' }, NO_DOTENV);
    assert.equal(config.mode, 'replay');
    assert.equal(config.apiVersion, API_VERSION);
    assert.equal(config.requestTimeoutMs, 30_000);
  });

  test('CONTRACT_URL is taken as given, and named when it is not an absolute address without a fragment', () => {
    const url = 'https://git.example.test/qa/conformance/blob/main/contract/platform-api.md';
    assert.equal(configOf({ CONTRACT_URL: url }, NO_DOTENV).contractUrl, url);
    for (const value of ['contract.html', `${url}#8-limits`]) assert.match(problemsOf({ CONTRACT_URL: value }), new RegExp(`CONTRACT_URL=${value.replace(/[.]/g, '\\.')} is not an absolute address without a fragment`));
  });

  test('the settings table gives every variable a purpose', () => {
    for (const [key, setting] of Object.entries(ALL)) {
      assert.match(setting.env, /^[A-Z][A-Z0-9_]*$/, key);
      assert.ok(setting.purpose.trim().length > 0, `${setting.env} has no purpose`);
    }
  });
});

describe('live mode with missing or invalid variables', () => {
  test('nothing set: one error lists every missing required variable with its purpose', () => {
    const message = problemsOf({ SUITE_MODE: 'live' });
    assert.ok(REQUIRED.length >= 8, 'the settings table marks the target variables required');
    for (const setting of REQUIRED) assert.ok(message.includes(`${setting.env} is missing: ${setting.purpose}`), `${setting.env} not reported in:\n${message}`);
    assert.equal(message.match(/ is missing: /g)?.length, REQUIRED.length, message);
  });

  test('record mode needs the same variables', () => {
    const message = problemsOf({ SUITE_MODE: 'record' });
    for (const setting of REQUIRED) assert.ok(message.includes(`${setting.env} is missing`), setting.env);
  });

  test('one missing variable is named alone', () => {
    const { AGENT_ID: _agent, ...rest } = LIVE;
    const message = problemsOf(rest);
    assert.match(message, /AGENT_ID is missing: an active agent of LOCATION_ID/);
    assert.equal(message.match(/ is missing: /g)?.length, 1, message);
  });

  test('an unknown SUITE_MODE is named with the allowed values', () => {
    assert.match(problemsOf({ ...LIVE, SUITE_MODE: 'playback' }), /SUITE_MODE=playback is not one of replay, live, record/);
  });

  for (const value of ['0', '-5', 'abc', '1.5', '30s']) {
    test(`REQUEST_TIMEOUT_MS=${value} is named`, () => {
      assert.match(problemsOf({ ...LIVE, REQUEST_TIMEOUT_MS: value }), new RegExp(`REQUEST_TIMEOUT_MS=${value.replace('.', '\\.')} is not a positive whole number`));
    });
  }

  for (const value of ['staging.example.test', 'ftp://staging.example.test', 'http://']) {
    test(`BASE_URL=${value} is named`, () => {
      assert.match(problemsOf({ ...LIVE, BASE_URL: value }), new RegExp(`BASE_URL=${value.replace(/[.]/g, '\\.')} is not an http\\(s\\) address`));
    });
  }

  test('a REPLACEMENT_EXECUTE_PATH without {agentId} is named', () => {
    assert.match(problemsOf({ ...LIVE, REPLACEMENT_EXECUTE_PATH: '/agent/execute' }), /REPLACEMENT_EXECUTE_PATH=\/agent\/execute must start with \/ and hold \{agentId\}/);
  });

  test('several problems come in one error, one line each', () => {
    const { LOCATION_ID: _location, ...rest } = LIVE;
    const message = problemsOf({ ...rest, SUITE_MODE: 'lvie', REQUEST_TIMEOUT_MS: 'soon', BASE_URL: 'example.test' });
    for (const name of ['SUITE_MODE=lvie', 'REQUEST_TIMEOUT_MS=soon', 'LOCATION_ID is missing', 'BASE_URL=example.test']) assert.ok(message.includes(name), `${name} in:\n${message}`);
    assert.equal(message.split('\n  - ').length - 1, 4, message);
  });

  test('no token value is ever part of the message', () => {
    const message = problemsOf({ ...LIVE, BASE_URL: 'nope' });
    for (const secret of [LIVE.ACCESS_TOKEN, LIVE.FILES_READONLY_TOKEN, LIVE.NO_FILES_SCOPE_TOKEN]) assert.ok(!message.includes(secret));
  });
});

describe('live mode with a complete environment', () => {
  test('the target is built; optional variables may be absent', () => {
    const config = configOf(LIVE, NO_DOTENV);
    assert.equal(config.mode, 'live');
    assert.equal(config.reference, undefined);
    const target = config.target as Target;
    assert.equal(target.baseUrl, 'https://staging.example.test/api', 'trailing slashes are dropped');
    assert.equal(target.agentId, 'agent-1');
    for (const optional of ['inactiveAgentId', 'foreignLocationId', 'testClockUrl'] as const) assert.equal(target[optional], undefined, optional);
    assert.equal(target.tokens.pit, undefined);
  });

  test('optional variables are carried when set', () => {
    const target = configOf(
      { ...LIVE, INACTIVE_AGENT_ID: 'agent-off', FOREIGN_LOCATION_ID: 'loc-2', PIT_TOKEN: 'pit-token-secret', TEST_CLOCK_URL: 'http://127.0.0.1:4010/__test/clock' },
      NO_DOTENV,
    ).target as Target;
    assert.equal(target.inactiveAgentId, 'agent-off');
    assert.equal(target.foreignLocationId, 'loc-2');
    assert.equal(target.tokens.pit, 'pit-token-secret');
    assert.equal(target.testClockUrl, 'http://127.0.0.1:4010/__test/clock');
  });

  test('values are trimmed', () => {
    assert.equal(configOf({ ...LIVE, AGENT_ID: '  agent-1 \n' }, NO_DOTENV).target?.agentId, 'agent-1');
  });
});

describe('the .env file', () => {
  test('is read', () => {
    const { SUITE_MODE: _mode, ...rest } = LIVE;
    const config = configOf({ SUITE_MODE: 'live' }, dotenv(rest));
    assert.equal(config.target?.locationId, 'loc-1');
    assert.equal(config.target?.tokens.access, 'access-token-secret');
  });

  test('the environment wins over it', () => {
    const config = configOf({ ...LIVE, LOCATION_ID: 'loc-from-env', SUITE_MODE: 'live' }, dotenv({ LOCATION_ID: 'loc-from-file', SUITE_MODE: 'record' }));
    assert.equal(config.target?.locationId, 'loc-from-env');
    assert.equal(config.mode, 'live');
  });

  test('an empty environment variable does not hide the value of the file', () => {
    // CI often passes `PIT_TOKEN: ${{ secrets.PIT_TOKEN }}`, which is empty when the secret is not set.
    const config = configOf({ ...LIVE, PIT_TOKEN: '' }, dotenv({ PIT_TOKEN: 'pit-from-file' }));
    assert.equal(config.target?.tokens.pit, 'pit-from-file');
  });

  test('leaves process.env untouched', () => {
    const name = 'PIT_TOKEN';
    configOf({}, dotenv({ [name]: 'x' }));
    assert.equal(process.env[name], undefined);
  });

  test('a name that is no setting is named, with the closest setting, before anything runs', () => {
    // The mode mistyped: without this line the run would replay the recordings, green, and judge no server.
    const message = problemsOf({}, dotenv({ SUIT_MODE: 'live', BASE_URL: 'https://staging.example.test', ACCESS_TOKN: 'access-token-secret', INACTIVE_AGENTID: 'agent-2' }));
    for (const [stray, meant] of [['SUIT_MODE', 'SUITE_MODE'], ['ACCESS_TOKN', 'ACCESS_TOKEN'], ['INACTIVE_AGENTID', 'INACTIVE_AGENT_ID']]) {
      assert.match(message, new RegExp(`\\n  - ${stray} \\(in \\.env\\) is not a setting of the suite and takes no part: did you mean ${meant}\\? Rename it, or remove it`), message);
    }
    assert.equal(message.split('\n').length, 4, `one line each:\n${message}`);
    assert.ok(!message.includes('access-token-secret'), 'no value is shown');
  });

  test('in the environment, other names are not the suite\'s to judge', () => {
    assert.equal(configOf({ SUIT_MODE: 'live', PATH: '/usr/bin' }, NO_DOTENV).mode, 'replay');
  });

  test('a missing file is no error', () => {
    assert.equal(configOf({}, join(DIR, 'does-not-exist')).mode, 'replay');
  });
});

describe('REFERENCE_SERVER=1', () => {
  test("needs no target variables: the target is the seed's world", () => {
    const config = configOf({ SUITE_MODE: 'live', REFERENCE_SERVER: '1' }, NO_DOTENV);
    assert.deepEqual(config.reference, { style: 'default', fault: undefined, seed: '1', clockStart: undefined, seedFile: undefined });
    assert.equal(config.target, undefined);
  });

  test('carries FAULT and SEED', () => {
    const reference = configOf({ SUITE_MODE: 'live', REFERENCE_SERVER: '1', FAULT: 'upload-six-files', SEED: '42' }, NO_DOTENV).reference;
    assert.equal(reference?.fault, 'upload-six-files');
    assert.equal(reference?.seed, '42');
  });

  // The reference checks its own settings (src/reference-server.ts); the setup stops the run with them.
  const referenceProblemsOf = async (env: Record<string, string>) =>
    (await referenceProblems(configOf({ SUITE_MODE: 'live', REFERENCE_SERVER: '1', ...env }, NO_DOTENV).reference ?? assert.fail('no reference settings'))).join('\n');

  test('carries REFERENCE_STYLE and names a style that does not exist', async () => {
    assert.equal(configOf({ SUITE_MODE: 'live', REFERENCE_SERVER: '1', REFERENCE_STYLE: 'alt' }, NO_DOTENV).reference?.style, 'alt');
    assert.equal(await referenceProblemsOf({ REFERENCE_STYLE: 'alt' }), '');
    assert.match(await referenceProblemsOf({ REFERENCE_STYLE: 'fancy' }), /REFERENCE_STYLE=fancy is not a reference style; known: default, alt/);
  });

  test('names a SEED_FILE that cannot be read', async () => {
    assert.match(await referenceProblemsOf({ SEED_FILE: join(DIR, 'no-seed.json') }), /SEED_FILE: seed file .*no-seed\.json cannot be read/);
  });

  test('reads REFERENCE_CLOCK_START as an instant and names it when it is not one', () => {
    const env = { SUITE_MODE: 'live', REFERENCE_SERVER: '1', REFERENCE_CLOCK_START: '2026-11-25T12:00:00Z' };
    assert.equal(configOf(env, NO_DOTENV).reference?.clockStart, Date.parse('2026-11-25T12:00:00Z'));
    assert.match(problemsOf({ ...env, REFERENCE_CLOCK_START: 'tomorrow' }), /REFERENCE_CLOCK_START=tomorrow is not an ISO-8601 instant/);
  });

  test('still reports an invalid SUITE_MODE or REQUEST_TIMEOUT_MS', () => {
    const message = problemsOf({ SUITE_MODE: 'nope', REFERENCE_SERVER: '1', REQUEST_TIMEOUT_MS: '0' });
    assert.match(message, /SUITE_MODE=nope/);
    assert.match(message, /REQUEST_TIMEOUT_MS=0/);
    assert.doesNotMatch(message, /is missing/);
  });
});

describe('replay', () => {
  test('sends the API version and replacement path the recording was made with, whatever the environment says', () => {
    const config = configOf({ API_VERSION: 'v9', REPLACEMENT_EXECUTE_PATH: '/elsewhere/{agentId}/run' }, NO_DOTENV);
    assert.equal(config.apiVersion, 'v3');
    assert.equal(config.replacementPath, REPLACEMENT_EXECUTE_PATH);
  });

  test('with a BASE_URL set, says that it judges the recordings, not that server', () => {
    assert.equal(replayNotice(configOf({}, NO_DOTENV)), undefined);
    const config = configOf({ BASE_URL: 'https://staging.example.test' }, NO_DOTENV);
    assert.equal(config.target?.baseUrl, REPLAY_BASE_URL);
    assert.equal(replayNotice(config), 'Not judged: BASE_URL=https://staging.example.test. SUITE_MODE is replay, so this run judged the recordings in fixtures/, not that server; set SUITE_MODE=live to judge it');
  });

  test('names the missing recordings and the command that makes them', () => {
    assert.match(problemsOf({ FIXTURES_DIR: join(DIR, 'no-fixtures') }), /SUITE_MODE=replay needs recorded fixtures, and .*target\.json does not exist; record them with npm run record/);
  });
});

describe('a configuration error under every command: its lines, no stack trace', () => {
  const ROOT = fileURLToPath(new URL('../../', import.meta.url));
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !Object.values(ALL).some((setting) => setting.env === name)));
  /** A command of the suite run as a user runs it, from `cwd` (whose .env it reads), with `env` alone of the settings. */
  const run = (args: string[], env: Record<string, string>, cwd = ROOT) => {
    const child = spawnSync(process.execPath, args, { cwd, env: { ...inherited, ...env }, encoding: 'utf8', timeout: 60_000 });
    return { status: child.status, output: `${child.stdout}${child.stderr}` };
  };
  const conformance = [join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--config', join(ROOT, 'playwright.config.ts'), '--list'];
  const doctorScript = [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'scripts', 'doctor.ts')];
  const CASES: readonly { why: string; env: Record<string, string>; line: RegExp }[] = [
    { why: 'a missing variable', env: { ...LIVE, AGENT_ID: '' }, line: /^ {2}- AGENT_ID is missing: an active agent of LOCATION_ID$/m },
    { why: 'SUITE_MODE=bogus', env: { SUITE_MODE: 'bogus' }, line: /^ {2}- SUITE_MODE=bogus is not one of replay, live, record$/m },
    { why: 'a BASE_URL without a scheme', env: { ...LIVE, BASE_URL: 'staging.example.test' }, line: /^ {2}- BASE_URL=staging\.example\.test is not an http\(s\) address: write it whole, with its scheme \(https:\/\/staging\.example\.test\)$/m },
  ];
  for (const { why, env, line } of CASES) {
    test(`${why}: npm run conformance and npm run doctor exit 1 with its line`, () => {
      const { status, output } = run(conformance, env, DIR);
      assert.equal(status, 1, output);
      assert.match(output, /^The suite's configuration has (a problem|\d+ problems); fix each in the environment or \.env/m);
      assert.match(output, line);
      assert.doesNotMatch(output, /^\s+at |problems: \[/m, `no stack trace, no dump:\n${output}`);
      const doctor = run(doctorScript, env, DIR);
      assert.equal(doctor.status, 1, doctor.output);
      assert.match(doctor.output.replace(/^ {2}/gm, '  - '), line);
      assert.doesNotMatch(doctor.output, /^\s+at /m);
    });
  }

  test('a mistyped SUITE_MODE in .env: the run stops naming it, rather than replaying the recordings', () => {
    const cwd = mkdtempSync(join(DIR, 'typo-'));
    writeFileSync(join(cwd, '.env'), Object.entries({ ...LIVE, SUITE_MODE: '', SUIT_MODE: 'live', ACCESS_TOKEN: '', ACCESS_TOKN: 'access-token-secret' }).map(([name, value]) => `${name}=${value}\n`).join(''));
    for (const args of [conformance, doctorScript]) {
      const { status, output } = run(args, {}, cwd);
      assert.equal(status, 1, output);
      assert.match(output, /SUIT_MODE \(in \.env\) is not a setting of the suite and takes no part: did you mean SUITE_MODE\?/);
      assert.match(output, /ACCESS_TOKN \(in \.env\) is not a setting of the suite and takes no part: did you mean ACCESS_TOKEN\?/);
      assert.doesNotMatch(output, /access-token-secret|^\s+at /m);
    }
  });

  test('a replay with a BASE_URL in its environment says in its first and last lines that it judged the recordings, not BASE_URL', () => {
    const reports = mkdtempSync(join(DIR, 'replay-'));
    const args = [join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--grep', 'UPLOAD-ACCEPTED'];
    const { status, output } = run(args, { BASE_URL: 'https://staging.example.test', REPORTS_DIR: reports, CI: '1' });
    assert.equal(status, 0, output);
    const lines = output.split('\n').filter((line) => line.trim() !== '');
    const notice = /^Not judged: BASE_URL=https:\/\/staging\.example\.test\. SUITE_MODE is replay, so this run judged the recordings in fixtures\/, not that server; set SUITE_MODE=live to judge it$/;
    assert.match(lines[0], notice, output);
    assert.match(lines.at(-1) as string, notice, output);
  });

  test('a BASE_URL set while the mode is replay: npm run doctor names it and exits 1', () => {
    const { status, output } = run(doctorScript, { BASE_URL: 'https://staging.example.test' }, ROOT);
    assert.equal(status, 1, output);
    assert.match(output, /^Preflight: nothing to check: replay .*\n {2}Not judged: BASE_URL=https:\/\/staging\.example\.test\. SUITE_MODE is replay/);
  });
});

describe('npm run mutation', () => {
  test('its explicit configuration is used whole: a FAULT or SEED_FILE of the environment or .env takes no part', () => {
    const explicit = mutationConfig(join(DIR, 'mutation'), [{ name: 'baseline' }, { name: 'upload-six-files', rules: ['UPLOAD-FILES-MAX'] }]);
    const config = configOf(
      { SUITE_CONFIG: JSON.stringify(explicit), FAULT: 'upload-four-files', SUITE_MODE: 'replay' },
      dotenv({ FAULT: 'upload-six-files', SEED_FILE: join(DIR, 'no-seed.json'), REPORTS_DIR: 'elsewhere' }),
    );
    assert.deepEqual(config, JSON.parse(JSON.stringify(explicit)), 'the configuration as the mutation run wrote it');
    assert.equal(config.mode, 'live');
    assert.equal(config.reference?.fault, undefined);
    assert.equal(config.reference?.seedFile, undefined);
    assert.deepEqual(config.mutation, { projects: [{ name: 'baseline' }, { name: 'upload-six-files', rules: ['UPLOAD-FILES-MAX'] }] });
  });
});

describe('secretsOf', () => {
  // Every secret setting set, each to a value of its own: a new credential row is covered without touching this test.
  const secretEnv = Object.fromEntries(Object.values(ALL).filter((setting) => setting.secret).map((setting) => [setting.env, `${setting.env.toLowerCase()}-secret`]));
  const full = configOf({ ...LIVE, ...secretEnv }, NO_DOTENV).target as Target;

  test('lists every token of the target', () => {
    assert.deepEqual(new Set(secretsOf(full)), new Set(Object.values(secretEnv)));
  });

  test('covers every setting marked secret', () => {
    const secretKeys = Object.entries(ALL).filter(([, setting]) => setting.secret).map(([key]) => key);
    assert.ok(secretKeys.length >= 4);
    for (const key of secretKeys) {
      const value = (full.tokens as Record<string, string | undefined>)[key];
      assert.ok(value !== undefined && secretsOf(full).includes(value), `${ALL[key].env} (${key}) is not in secretsOf`);
    }
  });

  test('leaves out an absent PIT', () => {
    const target = configOf(LIVE, NO_DOTENV).target as Target;
    assert.deepEqual(secretsOf(target).sort(), ['access-token-secret', 'files-token-secret', 'nofiles-token-secret']);
  });
});

describe('one reader of the environment', () => {
  test('process.env is read only by src/config/config.ts and reference/config.ts (tests and child environments aside)', () => {
    const root = new URL('../../', import.meta.url).pathname;
    const sources = ['playwright.config.ts', ...['src', 'specs', 'reference', 'scripts'].flatMap((dir) => readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file)))]
      .filter((file) => file.endsWith('.ts') && !/(^|\/)test\//.test(file));
    const readers = sources.filter((file) => /(?<!\.\.\.)process\.env\b/.test(readFileSync(join(root, file), 'utf8')));
    assert.deepEqual(readers.sort(), ['reference/config.ts', 'src/config/config.ts']);
  });
});

describe('.env.example', () => {
  const EXAMPLE = fileURLToPath(new URL('../../.env.example', import.meta.url));

  test('lists every setting in the order of the table, each under its purpose, empty or at its default', () => {
    const lines = readFileSync(EXAMPLE, 'utf8').split('\n');
    const entries = lines.flatMap((line, i) => {
      const variable = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
      return variable ? [{ env: variable[1], value: variable[2], comment: lines[i - 1] }] : [];
    });
    const settings = Object.values(SETTINGS) as { env: string; purpose: string; default?: string }[];
    assert.deepEqual(entries.map((entry) => entry.env), settings.map((setting) => setting.env), 'the variables of .env.example, in order');
    const violations = settings.flatMap((setting, i) => [
      ...(entries[i].comment === `# ${setting.purpose}` ? [] : [`${setting.env} is not under "# ${setting.purpose}" but "${entries[i].comment}"`]),
      ...(['', setting.default].includes(entries[i].value) ? [] : [`${setting.env}=${entries[i].value} is neither empty nor its default ${setting.default ?? '(none)'}`]),
    ]);
    assert.deepEqual(violations, []);
  });

  test('copied to .env as it is, it leaves every default', () => {
    assert.deepEqual(configOf({}, EXAMPLE), configOf({}, NO_DOTENV));
  });
});

describe('the configuration pages', () => {
  /** The settings that have no row `| \`NAME\` |` in the page, or whose row does not give their default. */
  function undocumented(page: string, settings: Record<string, { env: string; default?: string }>): string[] {
    const rows = readFileSync(new URL(`../../docs/${page}`, import.meta.url), 'utf8').split('\n');
    return Object.values(settings).flatMap((setting) => {
      const row = rows.find((line) => line.startsWith(`| \`${setting.env}\` |`));
      if (!row) return [`docs/${page} has no row for ${setting.env}`];
      return setting.default && !row.includes(`\`${setting.default}\``) ? [`docs/${page} does not give ${setting.env}'s default ${setting.default}`] : [];
    });
  }

  test("docs/reference-server.md documents every setting of the reference server's entry point, with its default", () => {
    assert.deepEqual(undocumented('reference-server.md', SERVER_SETTINGS), []);
  });

  test('docs/configuration.md documents every setting of the configuration, with its default', () => {
    assert.deepEqual(undocumented('configuration.md', SETTINGS), []);
  });
});
