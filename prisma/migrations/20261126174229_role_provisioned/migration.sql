-- AlterTable
ALTER TABLE "Role" ADD COLUMN "provisioned" BOOLEAN NOT NULL DEFAULT false;

-- Roles provisioning created before this column (issue #22 item 3): a role is provisioned when
-- its uid is the generated `prov_` form, or when the newest `role.create` recorded for its uid
-- was made by the local operator (provisioning files; the CLI acts as the same operator).
UPDATE "Role" SET "provisioned" = true
WHERE "name" NOT LIKE 'fixed:%' AND "name" NOT LIKE 'basic:%' AND "name" NOT LIKE 'plugins:%'
  AND ("uid" LIKE 'prov\_%' ESCAPE '\'
    OR (SELECT e."actorKind" FROM "AuditEvent" e
        WHERE e."resourceKind" = 'role' AND e."resourceId" = "Role"."uid" AND e."action" = 'role.create'
        ORDER BY e."id" DESC LIMIT 1) = 'local');
