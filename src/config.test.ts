import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { databasePath } from './platform/database.js';

/** The folder DATABASE_URL's relative paths resolve against (the project folder). */
const databaseBase = dirname(databasePath('file:./anchor.db'));

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: 'file:./data/portcullis.db',
      adminLogin: 'admin',
      adminPassword: undefined,
      edition: 'enterprise',
      apiKeyMaxSecondsToLive: undefined,
      logLevel: 'info',
      auth: {
        cookieName: 'portcullis_session',
        rotationSeconds: 600,
        idleSeconds: 7 * 86_400,
        lifetimeSeconds: 30 * 86_400,
        bruteForce: { maxAttempts: 5, windowSeconds: 300 },
        oauth: null,
        ldapConfigFile: null,
      },
    });
  });
  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'file:/tmp/x.db',
      EDITION: 'oss',
      API_KEY_MAX_SECONDS_TO_LIVE: '3600',
      LOG_LEVEL: 'debug',
    });
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'file:/tmp/x.db',
      edition: 'oss',
      apiKeyMaxSecondsToLive: 3600,
      logLevel: 'debug',
    });
  });
  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['EDITION', 'community'],
    ['DATABASE_URL', 'postgres://x'],
    ['API_KEY_MAX_SECONDS_TO_LIVE', '-5'],
    ['API_KEY_MAX_SECONDS_TO_LIVE', '1.5'],
    ['LOG_LEVEL', 'loud'],
    ['SHUTDOWN_TIMEOUT_SECONDS', '0'],
    ['SHUTDOWN_TIMEOUT_SECONDS', '3601'],
    ['METRICS_ENABLED', 'yes'],
    ['COMMIT_SHA', 'not a commit'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
  it.each([
    'file:./data/portcullis.db',
    'postgres://portcullis:secret@db.example:5432/portcullis',
    'postgresql://portcullis@127.0.0.1/portcullis?sslmode=require',
    'postgres:///portcullis?host=/run/postgresql&user=portcullis',
  ])('accepts DATABASE_URL=%s (SQLite or PostgreSQL)', (url) => {
    expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
  });
  it.each([
    ['mysql://u:p@h/db', 'got scheme "mysql:"'],
    ['file:', 'file: needs a path'],
    ['postgres://db.example:5432', 'names no database'],
    ['postgres:///portcullis', 'has no host'],
    ['./data/my.db', 'got the bare path "./data/my.db": for a SQLite file write file:./data/my.db'],
    ['/var/lib/x.db', 'write file:/var/lib/x.db'],
  ])('refuses DATABASE_URL=%s saying why (%s)', (url, why) => {
    expect(() => loadConfig({ DATABASE_URL: url })).toThrow(/DATABASE_URL.*must be file:<path> \(SQLite\) or postgres:\/\//);
    expect(() => loadConfig({ DATABASE_URL: url })).toThrow(why);
  });
  it('reads the operations settings: shutdown bound, metrics and their credentials, commit', () => {
    expect(loadConfig({})).toMatchObject({ shutdownTimeoutSeconds: 10, metrics: { enabled: false, basicAuth: null }, commit: undefined });
    expect(
      loadConfig({
        SHUTDOWN_TIMEOUT_SECONDS: '25',
        METRICS_ENABLED: 'true',
        METRICS_BASIC_AUTH_USERNAME: 'prom',
        METRICS_BASIC_AUTH_PASSWORD: 'secret',
        COMMIT_SHA: 'b915ceb',
      }),
    ).toMatchObject({
      shutdownTimeoutSeconds: 25,
      metrics: { enabled: true, basicAuth: { username: 'prom', password: 'secret' } },
      commit: 'b915ceb',
    });
  });
  it('resolves relative PROVISIONING_PATH and AUTH_LDAP_CONFIG_FILE against the folder DATABASE_URL uses, not the working directory', () => {
    const cwd = process.cwd();
    try {
      // Run from elsewhere: the answer must not change (the rule for DATABASE_URL).
      process.chdir(join(databaseBase, 'src'));
      expect(loadConfig({}).provisioningPath).toBe(join(databaseBase, 'provisioning'));
      const c = loadConfig({ PROVISIONING_PATH: 'conf/provisioning', AUTH_LDAP_ENABLED: 'true', AUTH_LDAP_CONFIG_FILE: 'conf/ldap.toml' });
      expect(c.provisioningPath).toBe(join(databaseBase, 'conf/provisioning'));
      expect(c.auth.ldapConfigFile).toBe(join(databaseBase, 'conf/ldap.toml'));
      expect(databasePath('file:./conf/x.db')).toBe(join(databaseBase, 'conf/x.db'));
      expect(loadConfig({ AUTH_LDAP_ENABLED: 'true' }).auth.ldapConfigFile).toBe(join(databaseBase, 'ldap.toml'));
    } finally {
      process.chdir(cwd);
    }
    const absolute = loadConfig({
      PROVISIONING_PATH: '/etc/portcullis/provisioning',
      AUTH_LDAP_ENABLED: 'true',
      AUTH_LDAP_CONFIG_FILE: '/etc/ldap.toml',
    });
    expect(absolute.provisioningPath).toBe('/etc/portcullis/provisioning');
    expect(absolute.auth.ldapConfigFile).toBe('/etc/ldap.toml');
  });
  it('reads the slow-request bounds in seconds, and refuses headers allowed longer than the whole request', () => {
    expect(loadConfig({}).security).toMatchObject({ requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, maxConnectionsPerClient: 64 });
    expect(
      loadConfig({ REQUEST_TIMEOUT_SECONDS: '5', HEADERS_TIMEOUT_SECONDS: '5', MAX_CONNECTIONS_PER_CLIENT: '8' }).security,
    ).toMatchObject({ requestTimeoutMs: 5_000, headersTimeoutMs: 5_000, maxConnectionsPerClient: 8 });
    expect(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: '5', HEADERS_TIMEOUT_SECONDS: '6' })).toThrow(
      'HEADERS_TIMEOUT_SECONDS: must not be larger than REQUEST_TIMEOUT_SECONDS',
    );
    for (const [name, value] of [
      ['REQUEST_TIMEOUT_SECONDS', '0'],
      ['HEADERS_TIMEOUT_SECONDS', '3601'],
      ['MAX_CONNECTIONS_PER_CLIENT', '0'],
    ]) {
      expect(() => loadConfig({ [name as string]: value })).toThrow(name);
    }
  });
  it('refuses half a pair of metrics credentials, and credentials for metrics that are off', () => {
    expect(() => loadConfig({ METRICS_ENABLED: 'true', METRICS_BASIC_AUTH_USERNAME: 'prom' })).toThrow('METRICS_BASIC_AUTH_PASSWORD');
    expect(() => loadConfig({ METRICS_ENABLED: 'true', METRICS_BASIC_AUTH_PASSWORD: 'x' })).toThrow('METRICS_BASIC_AUTH_USERNAME');
    expect(() => loadConfig({ METRICS_BASIC_AUTH_USERNAME: 'prom', METRICS_BASIC_AUTH_PASSWORD: 'x' })).toThrow('METRICS_ENABLED');
  });
});
