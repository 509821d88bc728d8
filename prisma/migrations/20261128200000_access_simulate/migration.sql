-- The preview of a proposed change is made with access:simulate, which basic:admin and
-- basic:service_admin hold by default (src/kernel/builtin-roles.ts). Basic roles seeded before get
-- it here, once; on a fresh database the roles do not exist yet and the seed writes them.
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", 'access:simulate', '', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r
WHERE r."uid" IN ('basic_admin', 'basic_service_admin')
  AND NOT EXISTS (
    SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access:simulate' AND p."scope" = ''
  );
