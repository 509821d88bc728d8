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
