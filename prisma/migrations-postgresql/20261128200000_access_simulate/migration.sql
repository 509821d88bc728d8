-- The preview of a proposed change is made with access:simulate, which basic:admin and
-- basic:service_admin hold by default (src/kernel/builtin-roles.ts). Basic roles seeded before get
-- it here, once; on a fresh database the roles do not exist yet and the seed writes them. The
-- INSERT runs only when there is a row to insert, so an empty database's change version stays 0
-- (its trigger fires per statement).
DO $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM "Role" r
    WHERE r."uid" IN ('basic_admin', 'basic_service_admin')
      AND NOT EXISTS (
        SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access:simulate' AND p."scope" = ''
      )
  ) THEN
    INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
    SELECT r."id", 'access:simulate', '', now(), now()
    FROM "Role" r
    WHERE r."uid" IN ('basic_admin', 'basic_service_admin')
      AND NOT EXISTS (
        SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access:simulate' AND p."scope" = ''
      );
  END IF;
END
$$;
