-- Grafana's directory REST (issue #12 item 1) for databases seeded before it. The basic roles now
-- hold by default (src/kernel/builtin-roles.ts): Viewer and up orgs:read on orgs:id:* (read the
-- organization one acts in), Admin orgs:write on orgs:id:* (rename it), Service Admin
-- orgs:write and orgs:delete on orgs:* and, through fixed:users:writer, passwords, the Service
-- Admin flag, disabling and enabling users on global.users:*. The seed creates basic roles once
-- and then leaves them to the operator, so existing basic roles get the new defaults here,
-- exactly once: a permission already present is not duplicated, and one an operator removes
-- later is not brought back (only a hard reset restores defaults). On a fresh database the roles
-- do not exist yet and this inserts nothing; the seed then writes them whole.
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", d."action", d."scope", strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r
JOIN (
    SELECT 'basic_viewer' AS "uid", 'orgs:read' AS "action", 'orgs:id:*' AS "scope"
    UNION ALL SELECT 'basic_editor', 'orgs:read', 'orgs:id:*'
    UNION ALL SELECT 'basic_admin', 'orgs:read', 'orgs:id:*'
    UNION ALL SELECT 'basic_admin', 'orgs:write', 'orgs:id:*'
    UNION ALL SELECT 'basic_service_admin', 'orgs:write', 'orgs:*'
    UNION ALL SELECT 'basic_service_admin', 'orgs:delete', 'orgs:*'
    UNION ALL SELECT 'basic_service_admin', 'users.password:write', 'global.users:*'
    UNION ALL SELECT 'basic_service_admin', 'users.permissions:write', 'global.users:*'
    UNION ALL SELECT 'basic_service_admin', 'users:disable', 'global.users:*'
    UNION ALL SELECT 'basic_service_admin', 'users:enable', 'global.users:*'
) d ON r."uid" = d."uid"
WHERE NOT EXISTS (
    SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = d."action" AND p."scope" = d."scope"
);
