# Build a static binary, then ship it alone on a minimal base.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/objectgateway ./cmd/objectgateway \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/objectgateway /usr/local/bin/objectgateway
# The data directory belongs to the unprivileged user, so a fresh volume is writable.
COPY --from=build --chown=65532:65532 /out/data /data
USER nonroot:nonroot
VOLUME ["/data"]
EXPOSE 9000
ENV OBJECTGATEWAY_ROOT=/data \
    OBJECTGATEWAY_LISTEN=0.0.0.0:9000
ENTRYPOINT ["/usr/local/bin/objectgateway"]
CMD ["serve"]
