/**
 * Times the hooks of yoga plugins: each hook function (and the function or `on*Done` hooks it
 * returns) is wrapped to record the time of its synchronous part, per plugin. An async hook's
 * awaited work (a database query) is not in it, its synchronous work before the first await is.
 * A few microsecond-long sections are timed precisely even on a busy machine, where comparing
 * whole requests with and without a plugin drowns them in noise.
 */
import type { Plugin } from 'graphql-yoga';

type Fn = (...args: unknown[]) => unknown;

/** Per-plugin call durations in microseconds, filled while requests run. */
export class HookTimer {
  readonly samples = new Map<string, number[]>();
  private enabled = false;

  /** Starts (or stops) recording; hooks run untimed meanwhile. */
  record(on: boolean): void {
    this.enabled = on;
  }

  clear(): void {
    for (const list of this.samples.values()) list.length = 0;
  }

  private timed(name: string, fn: Fn, depth = 0): Fn {
    const list = this.samples.get(name) ?? [];
    this.samples.set(name, list);
    return (...args: unknown[]) => {
      if (!this.enabled) return fn(...args);
      const started = performance.now();
      const result = fn(...args);
      list.push((performance.now() - started) * 1000);
      if (depth > 0) return result;
      // After-hooks: onValidate/onParse return a function, onExecute an object of on*Done hooks.
      if (typeof result === 'function') return this.timed(name, result as Fn, 1);
      if (result && typeof result === 'object' && !(result instanceof Promise)) {
        for (const [key, value] of Object.entries(result)) {
          if (typeof value === 'function' && /^on[A-Z]/.test(key)) (result as Record<string, Fn>)[key] = this.timed(name, value as Fn, 1);
        }
      }
      return result;
    };
  }

  /** A copy of `plugin` whose hooks are timed under `name` (instrumentation left as it is). */
  wrap(plugin: Plugin, name: string): Plugin {
    const copy: Record<string, unknown> = { ...plugin };
    for (const [key, value] of Object.entries(plugin)) {
      if (typeof value === 'function' && /^on[A-Z]/.test(key)) copy[key] = this.timed(name, (value as Fn).bind(plugin));
    }
    return copy as Plugin;
  }

  /** Microseconds per request of `name`: the mean of its calls, the slowest 2 % left out (preemption), times calls per request. */
  perRequest(name: string, requests: number): number {
    const list = [...(this.samples.get(name) ?? [])].sort((a, b) => a - b);
    if (list.length === 0) return 0;
    const kept = list.slice(0, Math.max(1, Math.floor(list.length * 0.98)));
    const mean = kept.reduce((a, b) => a + b, 0) / kept.length;
    return (mean * list.length) / requests;
  }
}
