module github.com/sqsfake/sqsfake/querytest

go 1.25

require (
	github.com/aws/aws-sdk-go v1.47.5
	github.com/aws/aws-sdk-go-v2 v1.22.1
	github.com/aws/aws-sdk-go-v2/service/sqs v1.26.0
	github.com/aws/smithy-go v1.16.0
)

require (
	github.com/aws/aws-sdk-go-v2/internal/configsources v1.2.1 // indirect
	github.com/aws/aws-sdk-go-v2/internal/endpoints/v2 v2.5.1 // indirect
	github.com/jmespath/go-jmespath v0.4.0 // indirect
)
