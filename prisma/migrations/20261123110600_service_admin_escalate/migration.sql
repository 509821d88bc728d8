-- Escalation rights (issue #9 item 1) for databases seeded before them. basic:service_admin now
-- holds the six role-management actions on permissions:type:* and provisioning:reload on
-- provisioners:accesscontrol by default (src/kernel/builtin-roles.ts). The seed creates basic
-- roles once and then leaves them to the operator, so an existing Service Admin role gets the new
-- defaults here, exactly once: a permission already present is not duplicated, and one an
-- operator removes later is not brought back (only a hard reset restores defaults). On a fresh
-- database the role does not exist yet and this inserts nothing; the seed then writes it whole.
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", d."action", d."scope", strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r
JOIN (
    SELECT 'roles:write' AS "action", 'permissions:type:*' AS "scope"
    UNION ALL SELECT 'roles:delete', 'permissions:type:*'
    UNION ALL SELECT 'users.roles:add', 'permissions:type:*'
    UNION ALL SELECT 'users.roles:delete', 'permissions:type:*'
    UNION ALL SELECT 'teams.roles:add', 'permissions:type:*'
    UNION ALL SELECT 'teams.roles:delete', 'permissions:type:*'
    UNION ALL SELECT 'provisioning:reload', 'provisioners:accesscontrol'
) d
WHERE r."uid" = 'basic_service_admin'
  AND NOT EXISTS (
    SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = d."action" AND p."scope" = d."scope"
  );
