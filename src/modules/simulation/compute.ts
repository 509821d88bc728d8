/**
 * The simulation proper, pure: applies the steps to a copy of the picture one by one, asks after
 * each whether the caller could make it (authorize.ts), recomputes the permissions of the
 * subjects it reaches with the kernel's evaluator, and answers each subject's difference between
 * the first and the last state with the change that causes each gained or lost permission: the
 * last change after which it became covered (gained) or stopped being covered (lost).
 */
import type { PermissionPair } from '../../kernel/catalogue.js';
import type { DomainError } from '../../kernel/errors.js';
import type { PermissionIndex } from '../../kernel/evaluator.js';
import { refusalOf, type Standing } from './authorize.js';
import { applyStep, type Step } from './model.js';
import { clonePicture, differenceBetween, type Holding, holdingOf, type Picture, type Subject } from './picture.js';

/** A permission gained or lost, and the 0-based index of the change that causes it. */
export interface MovedPermission extends PermissionPair {
  change: number;
}

/** One affected subject and its difference. */
export interface SubjectDifference {
  kind: Subject['kind'];
  id: number;
  /** The login, or an API key's name. */
  login: string;
  gained: MovedPermission[];
  lost: MovedPermission[];
}

/** What the simulation answers before paging. */
export interface Outcome {
  /** Per change, in order: the refusal the caller would meet, or undefined. */
  refusals: (DomainError | undefined)[];
  /** Subjects with a difference: users and service accounts by id, then API keys by id. */
  affected: SubjectDifference[];
  /** Subjects examined (the picture's). */
  examined: number;
}

type State = Holding & { step: number };

/** The last step of `history` after which `covered` turned true (its first step when it always was). */
function causeOf(history: readonly State[], covered: (index: PermissionIndex) => boolean): number {
  for (let i = history.length - 1; i > 0; i--) {
    if (covered((history[i] as State).index) && !covered((history[i - 1] as State).index)) return (history[i] as State).step;
  }
  return (history[1] as State).step;
}

/** Runs `steps` on a copy of `picture` for the caller of `standing` (module comment). */
export function runSimulation(picture: Picture, steps: readonly Step[], standing: Standing): Outcome {
  const work = clonePicture(picture);
  const histories = new Map<string, State[]>();
  const refusals = steps.map((step, i) => {
    const refusal = refusalOf(standing, work, step);
    for (const subject of applyStep(work, step)) {
      let history = histories.get(subject.key);
      if (!history) {
        history = [{ step: -1, ...holdingOf(picture, picture.subjects.get(subject.key) as Subject) }];
        histories.set(subject.key, history);
      }
      history.push({ step: i, ...holdingOf(work, subject) });
    }
    return refusal;
  });
  const affected: SubjectDifference[] = [];
  for (const [key, history] of histories) {
    const first = history[0] as State;
    const last = history[history.length - 1] as State;
    const { gained, lost } = differenceBetween(first, last, picture.permissions, work.permissions);
    if (gained.length === 0 && lost.length === 0) continue;
    const subject = picture.subjects.get(key) as Subject;
    affected.push({
      kind: subject.kind,
      id: subject.id,
      login: subject.login,
      gained: gained.map((p) => ({ action: p.action, scope: p.scope, change: causeOf(history, (index) => index.covers(p)) })),
      lost: lost.map((p) => ({ action: p.action, scope: p.scope, change: causeOf(history, (index) => !index.covers(p)) })),
    });
  }
  affected.sort((a, b) => Number(a.kind === 'apiKey') - Number(b.kind === 'apiKey') || a.id - b.id);
  return { refusals, affected, examined: picture.subjects.size };
}

/** People per permission gained and lost: "12 gain teams:delete; 3 lose users:write", by action then scope. */
export function summaryOf(affected: readonly SubjectDifference[]): { action: string; scope: string; gained: number; lost: number }[] {
  const byPair = new Map<string, { action: string; scope: string; gained: number; lost: number }>();
  const entry = (p: PermissionPair) => {
    const key = `${p.action}\u0000${p.scope}`;
    let e = byPair.get(key);
    if (!e) {
      e = { action: p.action, scope: p.scope, gained: 0, lost: 0 };
      byPair.set(key, e);
    }
    return e;
  };
  for (const s of affected) {
    for (const p of s.gained) entry(p).gained++;
    for (const p of s.lost) entry(p).lost++;
  }
  return [...byPair.values()].sort((a, b) =>
    a.action < b.action ? -1 : a.action > b.action ? 1 : a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0,
  );
}
