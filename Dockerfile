# The webapi-credential image: the release binary of the build's architecture at
# /usr/local/bin/webapi-credential, run as a non-root user. Argo CD's init container copies it out
# (examples/argocd). Build after `npm run release`:
#   docker buildx build --platform linux/amd64,linux/arm64 -t <registry>/webapi-credential:0.1.0 .
# Only the binary of the target architecture reaches the image (a stage picks it). That stage runs on
# the build's own platform (it only copies a file), and the last one runs nothing: a multi-arch build
# needs no emulation.
FROM --platform=$BUILDPLATFORM debian:12-slim AS pick
ARG TARGETARCH
COPY dist/release/ /release/
# The binary installed is the one SHA256SUMS lists for the arch, checked: a list without it fails
# the build (`sha256sum -c --ignore-missing` alone would pass on it).
RUN set -eu; \
    case "$TARGETARCH" in amd64) arch=x64 ;; arm64) arch=arm64 ;; *) echo "no release binary for $TARGETARCH" >&2; exit 1 ;; esac; \
    cd /release; \
    line=$(grep -E "^[0-9a-f]{64}  webapi-credential-[0-9A-Za-z.+-]+-linux-$arch\$" SHA256SUMS) || { echo "SHA256SUMS lists no linux-$arch binary" >&2; exit 1; }; \
    printf '%s\n' "$line" | sha256sum -c --strict -; \
    install -m 0555 "/release/${line#*  }" /webapi-credential

# glibc and libstdc++, which the Node inside the binary links against.
FROM debian:12-slim
COPY --from=pick /webapi-credential /usr/local/bin/webapi-credential
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/webapi-credential"]
