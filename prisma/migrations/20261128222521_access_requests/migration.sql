-- CreateTable
CREATE TABLE "AccessRequest" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "orgId" INTEGER NOT NULL,
    "requesterId" INTEGER NOT NULL,
    "roleId" INTEGER NOT NULL,
    "durationSeconds" INTEGER NOT NULL,
    "justification" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "created" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "decidedById" INTEGER,
    "decidedByLogin" TEXT NOT NULL DEFAULT '',
    "decidedAt" DATETIME,
    "decisionComment" TEXT NOT NULL DEFAULT '',
    "grantNotBefore" DATETIME,
    "grantExpiresAt" DATETIME,
    CONSTRAINT "AccessRequest_requesterId_fkey" FOREIGN KEY ("requesterId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "AccessRequest_roleId_fkey" FOREIGN KEY ("roleId") REFERENCES "Role" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "AccessRequest_orgId_status_id_idx" ON "AccessRequest"("orgId", "status", "id");

-- CreateIndex
CREATE INDEX "AccessRequest_requesterId_status_idx" ON "AccessRequest"("requesterId", "status");

-- CreateIndex
CREATE INDEX "AccessRequest_status_expiresAt_idx" ON "AccessRequest"("status", "expiresAt");

-- CreateIndex
CREATE INDEX "AccessRequest_roleId_idx" ON "AccessRequest"("roleId");

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
