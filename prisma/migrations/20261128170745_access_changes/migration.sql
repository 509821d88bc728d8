-- CreateTable
CREATE TABLE "AccessChange" (
    "revision" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "created" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "orgId" INTEGER NOT NULL,
    "actorKind" TEXT NOT NULL,
    "actorId" INTEGER NOT NULL,
    "actorLogin" TEXT NOT NULL DEFAULT '',
    "kinds" TEXT NOT NULL,
    "users" TEXT NOT NULL DEFAULT '[]',
    "roles" TEXT NOT NULL DEFAULT '[]',
    "teams" TEXT NOT NULL DEFAULT '[]',
    "apiKeys" TEXT NOT NULL DEFAULT '[]'
);

-- CreateTable
CREATE TABLE "AccessChangeHorizon" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "prunedThrough" INTEGER NOT NULL
);

-- CreateIndex
CREATE INDEX "AccessChange_orgId_revision_idx" ON "AccessChange"("orgId", "revision");

-- CreateIndex
CREATE INDEX "AccessChange_created_idx" ON "AccessChange"("created");

-- The change feed is read with access.changes:read, which basic:service_admin holds by default
-- (src/kernel/builtin-roles.ts). A Service Admin role seeded before gets it here, once; on a fresh
-- database the role does not exist yet and the seed writes it.
INSERT INTO "Permission" ("roleId", "action", "scope", "created", "updated")
SELECT r."id", 'access.changes:read', '', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
FROM "Role" r
WHERE r."uid" = 'basic_service_admin'
  AND NOT EXISTS (
    SELECT 1 FROM "Permission" p WHERE p."roleId" = r."id" AND p."action" = 'access.changes:read' AND p."scope" = ''
  );
