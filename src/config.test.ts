import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

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
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
