-- Access requests (src/modules/access-requests): every member may ask for a role
-- (access.requests:create, basic:viewer and up), admins read and decide them (access.requests:read,
-- access.requests:approve, basic:admin and basic:service_admin), as src/kernel/builtin-roles.ts
-- says. Basic roles seeded before get these here, once; on a fresh database the seed writes them.
-- Each INSERT runs only when there is a row to insert, so an empty database's change version stays
-- 0 (its trigger fires per statement).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM "Role" r WHERE r."uid" = 'basic_viewer' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:create' AND p."scope" = '')) THEN
    INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
    SELECT r."id", 'access.requests:create', '', now(), now() FROM "Role" r WHERE r."uid" = 'basic_viewer' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:create' AND p."scope" = '');
  END IF;
  IF EXISTS (SELECT 1 FROM "Role" r WHERE r."uid" = 'basic_editor' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:create' AND p."scope" = '')) THEN
    INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
    SELECT r."id", 'access.requests:create', '', now(), now() FROM "Role" r WHERE r."uid" = 'basic_editor' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:create' AND p."scope" = '');
  END IF;
  IF EXISTS (SELECT 1 FROM "Role" r WHERE r."uid" = 'basic_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:create' AND p."scope" = '')) THEN
    INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
    SELECT r."id", 'access.requests:create', '', now(), now() FROM "Role" r WHERE r."uid" = 'basic_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:create' AND p."scope" = '');
  END IF;
  IF EXISTS (SELECT 1 FROM "Role" r WHERE r."uid" = 'basic_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:read' AND p."scope" = '')) THEN
    INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
    SELECT r."id", 'access.requests:read', '', now(), now() FROM "Role" r WHERE r."uid" = 'basic_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:read' AND p."scope" = '');
  END IF;
  IF EXISTS (SELECT 1 FROM "Role" r WHERE r."uid" = 'basic_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:approve' AND p."scope" = '')) THEN
    INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
    SELECT r."id", 'access.requests:approve', '', now(), now() FROM "Role" r WHERE r."uid" = 'basic_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:approve' AND p."scope" = '');
  END IF;
  IF EXISTS (SELECT 1 FROM "Role" r WHERE r."uid" = 'basic_service_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:read' AND p."scope" = '')) THEN
    INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
    SELECT r."id", 'access.requests:read', '', now(), now() FROM "Role" r WHERE r."uid" = 'basic_service_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:read' AND p."scope" = '');
  END IF;
  IF EXISTS (SELECT 1 FROM "Role" r WHERE r."uid" = 'basic_service_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:approve' AND p."scope" = '')) THEN
    INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
    SELECT r."id", 'access.requests:approve', '', now(), now() FROM "Role" r WHERE r."uid" = 'basic_service_admin' AND NOT EXISTS (SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.requests:approve' AND p."scope" = '');
  END IF;
END
$$;
