/** Setup shared by the directory tests (users, roles and assignments: ../../helpers/subjects.ts). */

/** A unique suffix per call, so tests sharing one app never collide on names. */
let counter = 0;
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}
