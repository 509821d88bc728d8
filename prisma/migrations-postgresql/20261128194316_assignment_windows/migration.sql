-- AlterTable
ALTER TABLE "Role" ADD COLUMN     "maxAssignmentSeconds" INTEGER;

-- AlterTable
ALTER TABLE "TeamRole" ADD COLUMN     "endNoted" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "expiresAt" TIMESTAMP(3),
ADD COLUMN     "notBefore" TIMESTAMP(3),
ADD COLUMN     "startNoted" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "UserRole" ADD COLUMN     "endNoted" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "expiresAt" TIMESTAMP(3),
ADD COLUMN     "notBefore" TIMESTAMP(3),
ADD COLUMN     "startNoted" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "TeamRole_notBefore_idx" ON "TeamRole"("notBefore");

-- CreateIndex
CREATE INDEX "TeamRole_expiresAt_idx" ON "TeamRole"("expiresAt");

-- CreateIndex
CREATE INDEX "UserRole_notBefore_idx" ON "UserRole"("notBefore");

-- CreateIndex
CREATE INDEX "UserRole_expiresAt_idx" ON "UserRole"("expiresAt");
