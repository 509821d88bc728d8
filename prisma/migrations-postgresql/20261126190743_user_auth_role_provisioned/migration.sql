-- AlterTable
ALTER TABLE "Role" ADD COLUMN     "provisioned" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "UserAuth" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "authModule" TEXT NOT NULL,
    "authId" TEXT NOT NULL,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UserAuth_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "UserAuth_authModule_authId_key" ON "UserAuth"("authModule", "authId");

-- CreateIndex
CREATE UNIQUE INDEX "UserAuth_userId_authModule_key" ON "UserAuth"("userId", "authModule");

-- AddForeignKey
ALTER TABLE "UserAuth" ADD CONSTRAINT "UserAuth_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
