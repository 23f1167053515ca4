/** The door kind: HTTP requests to the gateway's door routes; refused until doors are served. */
package io.portcullis.relay.door;
