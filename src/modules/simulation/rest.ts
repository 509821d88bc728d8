/**
 * REST door of the what-if simulation: `POST /api/access-control/simulate` with
 * `{changes, first?, after?}` (inputs.ts), answering the Simulation of service.ts as JSON.
 */
import type { Route } from '../shared/rest.js';
import { simulateInput } from './inputs.js';
import { simulationRequirements } from './service.js';

export const simulationRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/access-control/simulate',
    requires: simulationRequirements.simulate,
    summary:
      'What proposed changes would do: per affected subject the permissions gained and lost and the change causing each (paged), people per permission, and whether the caller could make each change. Writes nothing.',
    body: simulateInput,
    handler: ({ principal, services, body }) => services.simulation.simulate(principal, body),
  },
];
