-- CreateTable
CREATE TABLE "AccessRequest" (
    "id" SERIAL NOT NULL,
    "orgId" INTEGER NOT NULL,
    "requesterId" INTEGER NOT NULL,
    "roleId" INTEGER NOT NULL,
    "durationSeconds" INTEGER NOT NULL,
    "justification" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "decidedById" INTEGER,
    "decidedByLogin" TEXT NOT NULL DEFAULT '',
    "decidedAt" TIMESTAMP(3),
    "decisionComment" TEXT NOT NULL DEFAULT '',
    "grantNotBefore" TIMESTAMP(3),
    "grantExpiresAt" TIMESTAMP(3),

    CONSTRAINT "AccessRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AccessRequest_orgId_status_id_idx" ON "AccessRequest"("orgId", "status", "id");

-- CreateIndex
CREATE INDEX "AccessRequest_requesterId_status_idx" ON "AccessRequest"("requesterId", "status");

-- CreateIndex
CREATE INDEX "AccessRequest_status_expiresAt_idx" ON "AccessRequest"("status", "expiresAt");

-- CreateIndex
CREATE INDEX "AccessRequest_roleId_idx" ON "AccessRequest"("roleId");

-- AddForeignKey
ALTER TABLE "AccessRequest" ADD CONSTRAINT "AccessRequest_requesterId_fkey" FOREIGN KEY ("requesterId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AccessRequest" ADD CONSTRAINT "AccessRequest_roleId_fkey" FOREIGN KEY ("roleId") REFERENCES "Role"("id") ON DELETE CASCADE ON UPDATE CASCADE;

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
