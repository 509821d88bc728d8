-- Access requests (src/modules/access-requests): every member may ask for a role
-- (access.requests:create, basic:viewer and up), admins read and decide them (access.requests:read,
-- access.requests:approve, basic:admin and basic:service_admin), as src/kernel/builtin-roles.ts
-- says. Basic roles seeded before get these here, once; on a fresh database the seed writes them.
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", 'access.requests:create', '', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r WHERE r."uid" = 'basic_viewer' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:create' AND p."scope" = '');
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", 'access.requests:create', '', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r WHERE r."uid" = 'basic_editor' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:create' AND p."scope" = '');
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", 'access.requests:create', '', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r WHERE r."uid" = 'basic_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:create' AND p."scope" = '');
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", 'access.requests:read', '', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r WHERE r."uid" = 'basic_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:read' AND p."scope" = '');
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", 'access.requests:approve', '', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r WHERE r."uid" = 'basic_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:approve' AND p."scope" = '');
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", 'access.requests:read', '', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r WHERE r."uid" = 'basic_service_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:read' AND p."scope" = '');
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", 'access.requests:approve', '', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r WHERE r."uid" = 'basic_service_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:approve' AND p."scope" = '');
