-- The change feed is read with access.changes:read, which basic:service_admin holds by default
-- (src/kernel/builtin-roles.ts). A Service Admin role seeded before gets it here, once; on a fresh
-- database the role does not exist yet and the seed writes it.
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", 'access.changes:read', '', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r
WHERE r."uid" = 'basic_service_admin'
  AND NOT EXISTS (
    SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.changes:read' AND p."scope" = ''
  );
