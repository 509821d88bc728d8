/**
 * Key of a Pothos field extension naming the relations that the field's rows arrive with
 * already loaded, whatever the executor (kernel/role-rows.ts serves `Viewer.roles` with their
 * permissions from its cache). http/use-execution.ts reads it: a document selecting only those
 * relations below such a field may run compiled.
 */
export const CARRIED_RELATIONS = 'portcullisCarriedRelations';
