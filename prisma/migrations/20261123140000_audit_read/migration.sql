-- The audit log (issue #12 item 5) is read with audit:read, which basic:service_admin now holds by
-- default (src/kernel/builtin-roles.ts). The seed creates basic roles once and then leaves them to
-- the operator, so a Service Admin role seeded before gets it here, exactly once: it is not
-- duplicated, and an operator who removes it later keeps it removed (a hard reset restores it).
-- On a fresh database the role does not exist yet and this inserts nothing; the seed writes it.
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", 'audit:read', '', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r
WHERE r."uid" = 'basic_service_admin'
  AND NOT EXISTS (
    SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'audit:read' AND p."scope" = ''
  );
