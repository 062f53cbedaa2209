# travel-commerce-sandbox in a container (docs/containers.md):
#   docker build -t travel-commerce-sandbox .
#   docker run --rm -p 4010:4010 -e SANDBOX_CONTROL_TOKEN=choose-a-token travel-commerce-sandbox
# Every option of `sandbox start` is set through the environment as SANDBOX_<OPTION>
# (docs/configuration.md, "Options from the environment"); arguments after the image name are
# passed to `sandbox start` and win over them.

# the package as npm would install it: packed from this repository (the build runs at pack time)
FROM node:22-slim AS package
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY . .
RUN npm pack --pack-destination /tmp && mv /tmp/travel-commerce-sandbox-*.tgz /tmp/travel-commerce-sandbox.tgz

FROM node:22-slim
COPY --from=package /tmp/travel-commerce-sandbox.tgz /tmp/
RUN npm install --global /tmp/travel-commerce-sandbox.tgz && rm /tmp/travel-commerce-sandbox.tgz && npm cache clean --force
COPY docker/healthcheck.mjs /usr/local/lib/sandbox-healthcheck.mjs
RUN mkdir /data && chown node:node /data
USER node
WORKDIR /data

# 0.0.0.0: a published port reaches only a sandbox bound to every interface. Bound there, the
# control plane (/__sandbox) wants X-Sandbox-Token: set SANDBOX_CONTROL_TOKEN, or read the generated
# one in the log. The data file is in /data: mount a volume there to keep it past the container.
ENV SANDBOX_HOST=0.0.0.0 \
    SANDBOX_PORT=4010 \
    SANDBOX_DATA=/data/db.json
EXPOSE 4010
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=3 CMD ["node", "/usr/local/lib/sandbox-healthcheck.mjs"]
# node is PID 1 and stops on SIGTERM as on Ctrl+C: the requests in flight answer (--stop-timeout,
# 3 s), then the data is flushed, within docker stop's 10 s
ENTRYPOINT ["sandbox", "start"]
