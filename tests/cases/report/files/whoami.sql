SELECT :_principal AS me, :_user_id AS user_id
