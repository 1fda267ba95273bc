# Table ecommerce from the single-table design ecommerce.design.yaml (dynago design export).
resource "aws_dynamodb_table" "ecommerce" {
  name         = "ecommerce"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "PK"
  range_key    = "SK"

  attribute {
    name = "PK"
    type = "S"
  }

  attribute {
    name = "SK"
    type = "S"
  }

  attribute {
    name = "GSI1PK"
    type = "S"
  }

  attribute {
    name = "GSI1SK"
    type = "S"
  }

  attribute {
    name = "Type"
    type = "S"
  }

  global_secondary_index {
    name            = "GSI1"

    key_schema {
      attribute_name = "GSI1PK"
      key_type       = "HASH"
    }

    key_schema {
      attribute_name = "GSI1SK"
      key_type       = "RANGE"
    }

    projection_type = "ALL"
  }

  global_secondary_index {
    name            = "GSI2"

    key_schema {
      attribute_name = "Type"
      key_type       = "HASH"
    }

    key_schema {
      attribute_name = "SK"
      key_type       = "RANGE"
    }

    projection_type = "ALL"
  }
}
