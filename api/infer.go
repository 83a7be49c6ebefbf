package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/infer"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// inferRoutes are the number inference endpoint.
func (s *server) inferRoutes() []route {
	now := s.cfg.Clock
	return []route{
		{
			method: "POST", path: "/v2/tracking_requests/infer_number", tag: "Tracking Requests",
			summary: "Infer the number type and shipping line of a number",
			doc: "Tells whether a number is a container, bill of lading or booking number, checks it, and ranks " +
				"the shipping lines that may have issued it. decision is auto_select from a confidence of 0.95, " +
				"needs_confirmation from 0.70, no_prediction below. Leased containers and bare numbers several " +
				"lines could have issued are never auto-selected. The body is plain JSON: {\"number\": \"...\"}.",
			auth: true, bucket: bucketInfer, body: inferBody{},
			status: http.StatusOK, resp: inferDocument{},
			errors:  []int{400, 401, 413, 415, 422, 429},
			handler: handleInferNumber(s.cfg.Infer, now),
		},
	}
}

type inferResource struct {
	ID         string       `json:"id" format:"uuid"`
	Type       string       `json:"type" enum:"infer_number_results"`
	Attributes infer.Result `json:"attributes"`
}

type inferDocument = jsonapi.Document[inferResource]

// inferBody is the body of POST /v2/tracking_requests/infer_number: a plain JSON object, not a
// JSON:API document.
type inferBody struct {
	Number string `json:"number" blank:"Number can't be blank." doc:"A container, bill of lading or booking number; spaces, dashes, dots and slashes are ignored. At most 40 characters."`
}

func (inferBody) example() string { return `{"number": "MSCU1234566"}` }

func decodeInferBody(body []byte) (string, error) {
	b, err := decodeBody[inferBody](body, "")
	return b.Number, err
}

func handleInferNumber(engine *infer.Engine, now boxwatch.Clock) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		number, err := decodeInferBody(body)
		if err != nil {
			return err
		}
		res, err := engine.Infer(number)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, inferDocument{Data: inferResource{ID: boxwatch.NewID(now()), Type: "infer_number_results", Attributes: res}})
		return nil
	}
}
