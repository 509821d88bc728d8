-- The backfill of the SQLite migration 20261126174229_role_provisioned (issue #22 item 3), which
-- the generated PostgreSQL migration ..._user_auth_role_provisioned lacks: that one only added the
-- column, so roles provisioning created on PostgreSQL before it stayed unmarked and a reload no
-- longer matched them. Hand-written, data only. A role is provisioned when its uid is the
-- generated `prov_` form, or when the newest `role.create` recorded for its uid was made by the
-- local operator (provisioning files; the CLI acts as the same operator). On a database where
-- provisioning already ran with the column, files' roles are marked already; a role the CLI
-- created since then is marked too, as the SQLite rule marks the CLI's older ones.
-- Only when roles exist: an UPDATE fires the change-feed trigger even when it matches no row, and
-- a fresh database's migrations leave the change counter at 0.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM "Role") THEN
    UPDATE "Role" SET "provisioned" = true
    WHERE "name" NOT LIKE 'fixed:%' AND "name" NOT LIKE 'basic:%' AND "name" NOT LIKE 'plugins:%'
      AND ("uid" LIKE 'prov\_%' ESCAPE '\'
        OR (SELECT e."actorKind" FROM "AuditEvent" e
            WHERE e."resourceKind" = 'role' AND e."resourceId" = "Role"."uid" AND e."action" = 'role.create'
            ORDER BY e."id" DESC LIMIT 1) = 'local');
  END IF;
END
$$;
