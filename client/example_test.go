package client_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/boxwatch/boxwatch/client"
)

func ExampleClient_InferNumber() {
	url, key, stop := exampleServer()
	defer stop()
	c, err := client.New(url, key)
	if err != nil {
		panic(err)
	}
	in, err := c.InferNumber(context.Background(), "MSCU 123456-6")
	if err != nil {
		panic(err)
	}
	fmt.Println(in.NumberType, in.ShippingLine.Decision, in.ShippingLine.Selected.SCAC)
	// Output: container auto_select MSCU
}

func ExampleClient_CreateTrackingRequest() {
	url, key, stop := exampleServer()
	defer stop()
	c, err := client.New(url, key)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	tr, err := c.CreateTrackingRequest(ctx, client.NewTrackingRequest{
		RequestType: client.BillOfLading, RequestNumber: "medufr030802", SCAC: "MEDU"})
	if err != nil {
		panic(err)
	}
	fmt.Println(tr.Status, tr.RequestNumber, tr.SCAC)

	// The same number again, while the first is live, is refused with the API's code.
	_, err = c.CreateTrackingRequest(ctx, client.NewTrackingRequest{
		RequestType: client.BillOfLading, RequestNumber: "MEDUFR030802", SCAC: "MSCU"})
	var apiErr *client.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code())
	}
	// Output:
	// pending MEDUFR030802 MSCU
	// 422 duplicate
}

func ExampleIsNotFound() {
	url, key, stop := exampleServer()
	defer stop()
	c, err := client.New(url, key)
	if err != nil {
		panic(err)
	}
	_, err = c.Shipment(context.Background(), "0190c2d6-0000-7000-8000-000000000000")
	fmt.Println(client.IsNotFound(err))
	// Output: true
}
