-- The change feed is read with access.changes:read, which basic:service_admin holds by default
-- (src/kernel/builtin-roles.ts). A Service Admin role seeded before gets it here, once; on a fresh
-- database the role does not exist yet and the seed writes it. The INSERT runs only when there is
-- a row to insert, so an empty database's change version stays 0 (its trigger fires per statement).
DO $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM "Role" r
    WHERE r."uid" = 'basic_service_admin'
      AND NOT EXISTS (
        SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.changes:read' AND p."scope" = ''
      )
  ) THEN
    INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
    SELECT r."id", 'access.changes:read', '', now(), now()
    FROM "Role" r
    WHERE r."uid" = 'basic_service_admin';
  END IF;
END
$$;
