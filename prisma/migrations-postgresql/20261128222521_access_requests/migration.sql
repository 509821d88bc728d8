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
