# syntax=docker/dockerfile:1
# boxwatch's container image: a static binary (SQLite is pure Go, so CGO_ENABLED=0) on a distroless
# base, running as an unprivileged user. Build: docker build -t boxwatch .
# See docs/deploy.md for running it on SQLite (a volume) or PostgreSQL.

ARG GO_VERSION=1.26
FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/boxwatch ./cmd/boxwatch \
 && mkdir -p /out/state

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/boxwatch /usr/local/bin/boxwatch
COPY --from=build --chown=65532:65532 /out/state /var/lib/boxwatch
WORKDIR /var/lib/boxwatch
# The API listens on every interface of the container. The admin listener stays on the
# container's loopback unless BOXWATCH_ADMIN_ADDR says otherwise (docs/deploy.md): it has no
# authentication and must never be published.
ENV BOXWATCH_ADDR=0.0.0.0:8080 \
    BOXWATCH_DB=/var/lib/boxwatch/boxwatch.db
EXPOSE 8080
VOLUME ["/var/lib/boxwatch"]
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/boxwatch"]
CMD ["serve"]
